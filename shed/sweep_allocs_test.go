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
	var ws []*waiter
	queue := func(at time.Time) {
		ws = make([]*waiter, 8)
		s.mu.Lock()
		for i := range ws {
			ws[i] = &waiter{ch: make(chan struct{}, 1)}
			_, _, err := s.sched.Push(at, "t", 0, 1, ws[i]) // due at once
			require.NoError(t, err)
		}
		s.mu.Unlock()
	}
	start := time.Now().Add(-time.Second)
	queue(start)
	s.sweepDeadlines() // the first grows the scheduler's scratch, which the next reuse
	queue(start.Add(time.Millisecond))
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
