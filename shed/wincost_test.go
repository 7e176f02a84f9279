package shed_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/shed"
)

// serveTwice pushes a request of cost 1 and then one of MaxInt64 for tenant
// at at and 1 ms later, and pops each (a request costlier than MaxQueueCost is
// queued when its bucket is empty, and runs alone).
func serveTwice(t *testing.T, s *shed.Scheduler[req], tenant string, at time.Time) {
	t.Helper()
	for i, cost := range []int64{1, math.MaxInt64} {
		now := at.Add(time.Duration(i) * time.Millisecond)
		_, _, err := s.Push(now, tenant, 0, cost, req{tenant: tenant, cost: cost})
		require.NoError(t, err)
		r, _, ok := s.Pop(now, math.MaxInt64, nil)
		require.True(t, ok)
		require.Equal(t, cost, r.cost)
	}
}

// TestShareWindowCostSaturates: the cost a tenant is served within a share
// window saturates at MaxInt64, as the other cost counters do. It wrapped
// negative after a cost of 1 and one of MaxInt64: served from the old list,
// the tenant did not raise the level (the next window's level was 1, not
// MaxInt64); served from the fresh list, it was not marked over the level.
func TestShareWindowCostSaturates(t *testing.T) {
	const window = time.Second
	cfg := shed.Config{OverShareWindow: window, MaxQueue: 10_000, MaxQueueCost: 10_000}
	t.Run("old list sets the level", func(t *testing.T) {
		s := newSched(t, cfg)
		h, _, err := s.Push(t0, "B", 0, 1, req{tenant: "B"})
		require.NoError(t, err)
		require.True(t, s.Remove(t0, h, shed.ReasonQueueDeadline)) // B is over its share
		serveTwice(t, s, "B", t0.Add(time.Millisecond))
		now := t0.Add(window + time.Millisecond) // the next request served opens the next window
		_, _, err = s.Push(now, "B", 0, 1, req{tenant: "B", cost: 1})
		require.NoError(t, err)
		_, _, ok := s.Pop(now, math.MaxInt64, nil)
		require.True(t, ok)
		assert.Equal(t, int64(math.MaxInt64), s.Stats().ShareLevel)
	})
	t.Run("fresh list over the level", func(t *testing.T) {
		s := newSched(t, cfg)
		// B is over its share and backlogged on the old list for a
		// window: a level of 1,000 per second.
		h, _, err := s.Push(t0, "B", 0, 1, req{tenant: "B"})
		require.NoError(t, err)
		require.True(t, s.Remove(t0, h, shed.ReasonQueueDeadline))
		for ms := range 1001 {
			at := t0.Add(time.Duration(ms) * time.Millisecond)
			_, _, err := s.Push(at, "B", 0, 1, req{tenant: "B", cost: 1})
			require.NoError(t, err)
			_, _, ok := s.Pop(at, math.MaxInt64, nil)
			require.True(t, ok)
		}
		require.Equal(t, int64(1000), s.Stats().ShareLevel)
		require.Zero(t, s.Stats().OverShareByLevel)
		serveTwice(t, s, "A", t0.Add(window+time.Millisecond))
		assert.Equal(t, int64(1), s.Stats().OverShareByLevel, "A was served MaxInt64 in the window, over the level of 1,000")
	})
}
