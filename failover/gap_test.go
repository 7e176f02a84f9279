package failover_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/failover"
)

// without returns ls minus the named region's report.
func without(ls []failover.Load, name string) []failover.Load {
	var out []failover.Load
	for _, l := range ls {
		if l.Region != name {
			out = append(out, l)
		}
	}
	return out
}

// TestStaleTrendAfterGapDoesNotFire: a2 rose for a while (a positive trend), then
// stopped reporting for 30 runs. It comes back at a steady load whose home p90 is
// below Enter: the trend of the ramp 30 runs ago says nothing about now, and must
// not be projected onto the new reading.
func TestStaleTrendAfterGapDoesNotFire(t *testing.T) {
	r := mustNew(t, six())
	for i := range 11 {
		_, err := r.Step(t0, loads(0.4, map[string]float64{"a2": 0.50 + 0.01*float64(i)}))
		require.NoError(t, err)
	}
	for range 30 {
		_, err := r.Step(t0, without(loads(0.4, nil), "a2"))
		require.NoError(t, err)
	}
	for run := range 5 {
		tab, err := r.Step(t0, loads(0.4, map[string]float64{"a2": 0.72}))
		require.NoError(t, err)
		d := decision(tab, "a2")
		require.Less(t, d.Signal.Home, 0.80)
		require.Equal(t, failover.Local, d.Phase, "run %d after the gap: %+v", run, d)
		assert.Zero(t, d.Signal.Trend, "run %d after the gap: a steady region has no trend", run)
	}
	assert.Zero(t, r.Stats().SpillStarts)
}
