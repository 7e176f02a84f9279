package aimd_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/aimd"
)

// TestRecoverMarkBelowLimit: fast recovery's mark is the limit held before
// a run of cuts, the value a low reading climbs back to. A SetConfig that
// raised Min above it (a floor pinned for a while, then restored) left the
// limit above the mark, and the next reading well below the target "climbed"
// to the mark: it cut the limit from 200 to 100, at a load of a third of
// the target (found by a review). A mark below the limit is no value to
// recover to: it is dropped, and Update's step stands.
func TestRecoverMarkBelowLimit(t *testing.T) {
	sig := &constLoad{}
	cfg := aimd.Config{Signal: sig, Manual: true, Recover: true, Initial: 100, Max: 1000, MemoryLimit: -1}
	l := newLimiter(t, cfg)
	now := time.Unix(1000, 0)
	tick := func(load float64) {
		t.Helper()
		sig.set(load)
		now = now.Add(100 * time.Millisecond)
		require.NoError(t, l.Tick(now))
	}
	tick(2) // a cut: the mark is 100
	require.Equal(t, 70, l.Limit())

	floor := cfg
	floor.Min, floor.Initial = 200, 200
	require.NoError(t, l.SetConfig(floor))
	require.NoError(t, l.SetConfig(cfg)) // the floor restored: the limit stays at 200
	require.Equal(t, 200, l.Limit())

	tick(0.3)
	assert.GreaterOrEqual(t, l.Limit(), 200, "a reading well below the target lowered the limit")
	assert.Equal(t, int64(1), l.Stats().Decreases, "only the first step decreased the limit")

	// The pure rule: a mark below the limit is dropped, whatever the reading.
	p := proportional
	for _, load := range []float64{0.3, 0.88} {
		next, s := aimd.Recover(200, 210, load, aimd.RecoverState{Mark: 100}, p)
		assert.InDelta(t, 210, next, 1e-9, "load %v: Update's step", load)
		assert.Equal(t, aimd.RecoverState{}, s, "load %v: the mark is dropped", load)
	}
	next, s := aimd.Recover(200, 140, 1.2, aimd.RecoverState{Mark: 100}, p)
	assert.InDelta(t, 140, next, 1e-9)
	assert.Equal(t, aimd.RecoverState{Mark: 200}, s, "a cut marks the limit before it, not the stale mark")
}
