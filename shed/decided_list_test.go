//go:build !race

package shed

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestManyDecidedWaitersAllocNothing: the waiters a dispatch, a deadline
// sweep or Close decides are signalled once the lock is released. They were
// collected in a slice on a stack buffer of 16 pointers, which grew on the
// heap, under the lock, when more were decided at once (Close's from nil,
// for any number), and the buffer itself took 128 bytes of the releasing
// goroutine's stack under the dispatch. Linked through the waiters, any
// number is collected without an allocation. (Not under the race detector,
// which allocates on its own.)
func TestManyDecidedWaitersAllocNothing(t *testing.T) {
	const n = 40 // past the 16 the stack buffer held
	for _, tc := range []struct {
		name   string
		decide func(s *Shedder)
		want   error
	}{
		{"deadline sweep", func(s *Shedder) { s.sweepDeadlines() }, errQueueDeadline},
		{"Close", func(s *Shedder) { s.Close() }, errClosed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := New(Config{Capacity: Fixed(1), QueueDeadline: time.Nanosecond, MaxQueue: 2 * n})
			require.NoError(t, err)
			start := time.Now().Add(-time.Second)
			queueDue(t, s, n, start)
			s.sweepDeadlines() // the first grows the scheduler's scratch, which the next reuse
			ws := queueDue(t, s, n, start.Add(time.Millisecond))
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			tc.decide(s)
			runtime.ReadMemStats(&after)
			for _, w := range ws {
				require.ErrorIs(t, w.err, tc.want)
				require.Len(t, w.ch, 1)
			}
			require.Zero(t, s.sched.Queued())
			require.Zero(t, after.Mallocs-before.Mallocs, "allocations deciding %d waiters", n)
		})
	}
}

// TestDecidedWaitersSignalledInOrder: the decided waiters are signalled in
// the order decided (the drain order), each once, and the list is left empty.
func TestDecidedWaitersSignalledInOrder(t *testing.T) {
	var l readyList
	ws := make([]*waiter, 5)
	for i := range ws {
		ws[i] = &waiter{ch: make(chan struct{}, 1)}
		l.push(ws[i])
	}
	var got []int
	for w := l.head; w != nil; w = w.next {
		for i := range ws {
			if ws[i] == w {
				got = append(got, i)
			}
		}
	}
	require.Equal(t, []int{0, 1, 2, 3, 4}, got)
	l.notify()
	for _, w := range ws {
		require.Len(t, w.ch, 1)
	}
	var empty readyList
	empty.notify() // nothing decided: nothing to signal
}

// queueDue queues n waiters of tenant "t" in s at at, each due at once (the
// Shedder's queue deadline is a nanosecond), and returns them.
func queueDue(t *testing.T, s *Shedder, n int, at time.Time) []*waiter {
	t.Helper()
	ws := make([]*waiter, n)
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range ws {
		ws[i] = &waiter{ch: make(chan struct{}, 1)}
		_, _, err := s.sched.Push(at, "t", 0, 1, ws[i])
		require.NoError(t, err)
	}
	return ws
}
