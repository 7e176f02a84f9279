package shed

import (
	"fmt"
	"math"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// freeNodes counts the Scheduler's recycled nodes.
func freeNodes[T any](s *Scheduler[T]) int {
	n := 0
	for f := s.free; f != nil; f = f.next {
		n++
	}
	return n
}

// TestSchedulerFreeNodesAfterBurst queues a burst and drains it by Pop, by
// Remove or both; two windows later, one request queued and popped leaves
// keepFree recycled nodes, not the burst's peak, and every handle of the
// burst stays stale, whether its node was recycled or left to the GC.
func TestSchedulerFreeNodesAfterBurst(t *testing.T) {
	const burst = 100_000
	t0 := time.Unix(1_700_000_000, 0)
	later := t0.Add(2 * time.Duration(keepWindow))
	for _, give := range []string{"pop", "remove", "both"} {
		t.Run(give, func(t *testing.T) {
			s, err := NewScheduler[int](Config{MaxQueue: burst, MaxQueueCost: burst})
			require.NoError(t, err)
			hs := make([]Handle[int], burst)
			for i := range hs {
				hs[i], _, err = s.Push(t0, fmt.Sprint(i%8), 0, 1, i)
				require.NoError(t, err)
			}
			j := burst - 1 // Remove takes requests from the back, Pop from the front
			for i := range burst {
				if give == "pop" || give == "both" && i%2 == 0 {
					_, _, ok := s.Pop(t0, math.MaxInt64, nil)
					require.True(t, ok)
					continue
				}
				require.True(t, s.Remove(t0, hs[j], 0))
				j--
			}
			require.Zero(t, s.Queued())
			h, _, err := s.Push(later, "a", 0, 1, -1)
			require.NoError(t, err)
			_, _, ok := s.Pop(later, math.MaxInt64, nil)
			require.True(t, ok)
			assert.LessOrEqual(t, freeNodes(s), keepFree)
			h2, _, err := s.Push(later, "a", 0, 1, -2)
			require.NoError(t, err)
			for _, old := range append(hs, h) {
				require.False(t, s.Remove(later, old, 0))
			}
			assert.Equal(t, 1, s.Queued())
			assert.True(t, s.Remove(later, h2, 0))
		})
	}
}

// TestSchedulerBurstsWithinWindowRecycle queues and drains bursts larger
// than keepFree within one window: after the first, they allocate no node.
func TestSchedulerBurstsWithinWindowRecycle(t *testing.T) {
	const burst = 1024
	t0 := time.Unix(1_700_000_000, 0)
	s, err := NewScheduler[int](Config{MaxQueue: burst, MaxQueueCost: burst})
	require.NoError(t, err)
	cycle := func() {
		for i := range burst {
			if _, _, err := s.Push(t0, "a", 0, 1, i); err != nil {
				panic(err)
			}
		}
		for range burst {
			s.Pop(t0, math.MaxInt64, nil)
		}
	}
	cycle()
	assert.Zero(t, testing.AllocsPerRun(10, cycle))
}

// TestKeepBound steps one free list's bound through windows.
func TestKeepBound(t *testing.T) {
	const w = keepWindow
	var k keep
	for i, step := range []struct {
		used  int // recorded in use before the release, -1 for none
		n     int // in use at the release
		at    int64
		bound int
	}{
		{used: 10, n: 9, at: 0, bound: keepFree}, // first window: starts at 0
		{used: 1000, n: 999, at: w / 2, bound: 1000},
		{used: -1, n: 0, at: w - 1, bound: 1000}, // drained within the window
		{used: -1, n: 0, at: w, bound: 1000},     // the burst is the previous window's peak
		{used: 200, n: 199, at: w + w/2, bound: 1000},
		{used: -1, n: 0, at: 2 * w, bound: 200}, // the burst is forgotten
		{used: -1, n: 0, at: 3 * w, bound: keepFree},
		{used: 500, n: 499, at: 3*w + 1, bound: 500},
		{used: -1, n: 100, at: 10 * w, bound: 100}, // windows with no release: what is in use now
		{used: 300, n: 299, at: 10*w + 1, bound: 300},
		{used: -1, n: 0, at: 5 * w, bound: 300}, // the clock went back: a new window
		{used: -1, n: 0, at: 6*w - 1, bound: 300},
		{used: -1, n: 0, at: 6 * w, bound: keepFree},
	} {
		if step.used >= 0 {
			k.used(step.used)
		}
		assert.Equal(t, step.bound, k.bound(step.n, step.at), "step %d", i)
	}
}

// TestTrimNodes cuts free lists of several lengths, by both ways of cutting.
func TestTrimNodes(t *testing.T) {
	for _, tc := range []struct{ nfree, bound int }{
		{100, 64},  // drops 36, fewer than it keeps
		{128, 64},  // drops as many as it keeps
		{129, 64},  // keeps fewer than it drops
		{5000, 64}, // keeps far fewer
		{5000, 1},
	} {
		s := &Scheduler[int]{}
		for range tc.nfree {
			s.free = &node[int]{next: s.free}
			s.nfree++
		}
		s.trimNodes(tc.bound)
		assert.Equal(t, tc.bound, s.nfree, "%+v", tc)
		assert.Equal(t, tc.bound, freeNodes(s), "%+v", tc)
	}
}

// TestShedderFreeTicketsAfterBurst admits a burst with a large fixed capacity
// and releases it; two windows later (on synctest's clock), after the
// admissions that read the clock, the free tickets and their slice's array are
// back to keepFree's size, and the burst's releases, called again while
// nothing is admitted, release nothing.
func TestShedderFreeTicketsAfterBurst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const burst = 100_000
		s, err := New(Config{Capacity: Fixed(1 << 30)})
		require.NoError(t, err)
		rels := make([]func(), burst)
		for i := range rels {
			rels[i], err = s.TryAcquire(fmt.Sprint(i%8), 0, 1)
			require.NoError(t, err)
		}
		for _, rel := range rels {
			rel()
		}
		time.Sleep(2 * time.Duration(keepWindow))
		for range clockEvery { // the fast path reads the clock once per clockEvery
			rel, err := s.TryAcquire("a", 0, 1)
			require.NoError(t, err)
			rel()
		}
		s.mu.Lock()
		free, capacity := len(s.free), cap(s.free)
		s.mu.Unlock()
		assert.LessOrEqual(t, free, keepFree)
		assert.LessOrEqual(t, capacity, 4*keepFree)
		for _, rel := range rels { // stale: recycled or dropped tickets
			rel()
		}
		assert.Zero(t, s.Stats().InFlight)
	})
}

// TestShedderBurstsWithinWindowRecycle admits and releases bursts larger than
// keepFree within one window: after the first, they allocate no ticket.
func TestShedderBurstsWithinWindowRecycle(t *testing.T) {
	const burst = 1024
	s, err := New(Config{Capacity: Fixed(1 << 30)})
	require.NoError(t, err)
	rels := make([]func(), burst)
	cycle := func() {
		for i := range rels {
			if rels[i], err = s.TryAcquire("a", 0, 1); err != nil {
				panic(err)
			}
		}
		for _, rel := range rels {
			rel()
		}
	}
	cycle()
	assert.Zero(t, testing.AllocsPerRun(10, cycle))
}
