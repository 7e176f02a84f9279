//go:build !race

package shed

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestSweepDeadlinesAllocsNothing: a deadline sweep that sheds a few queued
// requests collects their waiters in a buffer on its stack, as SetConfig and
// the dispatches do, rather than in a slice grown from nil under the lock
// (four allocations for eight waiters). (Not under the race detector, which
// allocates on its own.)
func TestSweepDeadlinesAllocsNothing(t *testing.T) {
	s, err := New(Config{Capacity: Fixed(1), QueueDeadline: time.Nanosecond})
	require.NoError(t, err)
	start := time.Now().Add(-time.Second)
	queueDue(t, s, 8, start)
	s.sweepDeadlines() // the first grows the scheduler's scratch, which the next reuse
	ws := queueDue(t, s, 8, start.Add(time.Millisecond))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s.sweepDeadlines()
	runtime.ReadMemStats(&after)
	for _, w := range ws {
		require.ErrorIs(t, w.err, errQueueDeadline)
		require.Len(t, w.ch, 1)
	}
	require.Zero(t, s.sched.Queued())
	require.Zero(t, after.Mallocs-before.Mallocs, "allocations of a sweep that sheds %d", len(ws))
}
