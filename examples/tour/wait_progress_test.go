package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWaitProgressOutlastsTheBound: the coalesce stampede waited at most
// tourWait (5 s) in all for its 10,000 readers to call, and under the race
// detector beside other packages' tests (go test -race ./... in examples)
// they took longer while still arriving: "coalesce: waited 5s for 10000
// readers to call" failed TestTourRuns. The wait now fails only when the
// count stops moving for the bound. Here a count that rises every
// millisecond takes three bounds to arrive and is waited for; one that
// stalls is not.
func TestWaitProgressOutlastsTheBound(t *testing.T) {
	const d = 100 * time.Millisecond
	start := time.Now()
	rising := func() uint64 { return uint64(time.Since(start) / time.Millisecond) }
	want := uint64(3 * d / time.Millisecond)
	require.NoError(t, waitProgress(d, "a rising count", want, rising))
	assert.GreaterOrEqual(t, time.Since(start), 3*d)

	err := waitProgress(d, "a stalled count", 10, func() uint64 { return 4 })
	require.Error(t, err)
	assert.Contains(t, err.Error(), "a stalled count (4 of 10)")
}
