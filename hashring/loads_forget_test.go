package hashring

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAcquireDoesNotWaitForForget: Loads promises lock-free counting, but an
// Acquire that found the counter Forget had just retired yielded in a loop
// until that Forget deleted it, so a Forget descheduled between its two steps
// held every Acquire of the node. Here the Acquire runs inside that window, on
// Forget's own goroutine: waiting for the deletion never ends (the test runs
// into its timeout); helping with it returns at once.
func TestAcquireDoesNotWaitForForget(t *testing.T) {
	var l Loads
	l.Acquire("a")
	l.Release("a")
	acquired := false
	testHookRetired = func(id string) {
		testHookRetired = nil
		l.Acquire(id)
		acquired = true
	}
	t.Cleanup(func() { testHookRetired = nil })

	assert.True(t, l.Forget("a"))

	assert.True(t, acquired)
	assert.Equal(t, int64(1), l.Load("a"), "the Acquire counts on a fresh counter")
	assert.Equal(t, int64(1), l.Total())
	l.Release("a")
	assert.Equal(t, LoadStats{InFlight: 0, Acquires: 2, Releases: 2, Nodes: 1}, l.Stats())
	assert.True(t, l.Forget("a"))
	assert.Equal(t, 0, l.Stats().Nodes)
}
