package shed_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/shed"
)

// fallbackRun starves H (weight 1, over its share, backlogged on the old
// list) for a window while F (of weight, under its share) is served first,
// then has F queue 20 more in the next window and pops second: it returns who
// was served in the second window and the Stats after it.
func fallbackRun(t *testing.T, weight, first, second int) ([]string, shed.Stats) {
	t.Helper()
	s := newSched(t, shed.Config{Quantum: 1, MaxQueue: 100, OverShareWindow: time.Second,
		QueueDeadline: time.Minute, StandingDeadline: time.Minute, Weights: map[string]int{"F": weight}})
	h, _, err := s.Push(t0, "H", 0, 1, req{tenant: "H"})
	require.NoError(t, err)
	require.True(t, s.Remove(t0, h, shed.ReasonQueueDeadline)) // H is over its share
	for i := range 50 {
		_, _, err := s.Push(t0, "H", 0, 1, req{tenant: "H", seq: i})
		require.NoError(t, err)
	}
	for i := range first {
		_, _, err := s.Push(t0, "F", 0, 1, req{tenant: "F", seq: i})
		require.NoError(t, err)
		v, _, ok := s.Pop(t0, math.MaxInt64, nil)
		require.True(t, ok)
		require.Equal(t, "F", v.tenant, "the fresh list is served first")
	}
	next := t0.Add(time.Second)
	for i := range 20 {
		_, _, err := s.Push(next, "F", 0, 1, req{tenant: "F", seq: 100 + i})
		require.NoError(t, err)
	}
	var got []string
	for range second {
		v, _, ok := s.Pop(next, math.MaxInt64, nil)
		require.True(t, ok)
		got = append(got, v.tenant)
	}
	return got, s.Stats()
}

// TestShareLevelFallbackWeighted: when the old list was backlogged and served
// nothing, the level is half of the most cost per unit of weight one fresh
// tenant got, exactly, as the old list's level is. F, of weight 10, served 9
// (0.9 per unit of weight) while H starved, sets a level of 0.45: served 5
// the next window, F is over it, and once its quantum of 10 is spent it
// joins H on the old list, behind H. With the fraction dropped the level was
// 1 (0.9 read as 0, raised to 1): F, served 9 a window, never counted as
// over its share, so H starved window after window; served 10, F stayed on
// the fresh list for another quantum. F served 39 (3.9) sets 1.95, not 1:
// served 15 the next window, F is under it (with a level of 1 it was over
// from its 11th). At the largest weight, where twice it overflows, the level
// is 4 (9 halved) per that weight: F served 5 is over it.
func TestShareLevelFallbackWeighted(t *testing.T) {
	t.Run("F served 9 then 11", func(t *testing.T) {
		got, st := fallbackRun(t, 10, 9, 11)
		assert.Equal(t, int64(1), st.OverShareByLevel, "F, served 0.5 per unit of weight over a level of 0.45, is over its share")
		assert.Equal(t, "H", got[10], "its quantum spent, F joins H on the old list, behind H")
	})
	t.Run("F served 39 then 15", func(t *testing.T) {
		got, st := fallbackRun(t, 10, 39, 15)
		assert.Zero(t, st.OverShareByLevel, "F got 1.5 per unit of weight, under the level of 1.95")
		assert.NotContains(t, got, "H", "F, under its share, is served before H")
	})
	t.Run("largest weight", func(t *testing.T) {
		_, st := fallbackRun(t, math.MaxInt, 9, 5)
		assert.Equal(t, int64(1), st.OverShareByLevel, "F, served 5 per MaxInt over a level of 4.5 (or 4) per MaxInt, is over its share")
	})
}
