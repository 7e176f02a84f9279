package failover_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/failover"
)

// skewed returns every region at mean CPU 0.6 (Demand/Capacity 0.6) with 17
// hosts at x and 3 at 0.72: its p50 is x, below the mean (k = 1, Home 0.6), and
// its p90 is 0.72 (Home 0.72, below Enter).
func skewed() []failover.Load {
	x := (20*0.6 - 3*0.72) / 17
	ls := loads(0.6, nil)
	for i := range ls {
		for j := range ls[i].HostCPU {
			ls[i].HostCPU[j] = x
		}
		for j := 17; j < 20; j++ {
			ls[i].HostCPU[j] = 0.72
		}
	}
	return ls
}

// TestPercentileChangeIsNotARamp: SetConfig is how an operator tunes
// Percentile at runtime, and a new Percentile changes what Home reads, not the
// load. A tier steady at Home 0.6 (p50) read Home 0.72 (p90) after the change:
// the trend took the 0.12 step as a per-run rise and projected it LeadRuns runs
// ahead (0.72 + 5 x 0.3 x 0.12 = 0.90), so every region fired, though at p90
// this steady load never fires (a Router started with p90 stays Local).
func TestPercentileChangeIsNotARamp(t *testing.T) {
	cfg := six()
	cfg.Percentile = 0.5
	r := mustNew(t, cfg)
	p90 := six()
	p90.Percentile = 0.9
	fresh := mustNew(t, p90)
	for range 30 {
		tab, err := r.Step(t0, skewed())
		require.NoError(t, err)
		for _, d := range tab.Regions {
			require.Equal(t, failover.Local, d.Phase, "%s at p50: %s", d.Name, d.Reason)
		}
		_, err = fresh.Step(t0, skewed())
		require.NoError(t, err)
	}
	require.NoError(t, r.SetConfig(p90))
	for run := range 20 {
		tab, err := r.Step(t0, skewed())
		require.NoError(t, err)
		want, err := fresh.Step(t0, skewed())
		require.NoError(t, err)
		for i, d := range tab.Regions {
			assert.Equal(t, failover.Local, d.Phase, "run %d, %s: %s", run, d.Name, d.Reason)
			assert.InDelta(t, want.Regions[i].Signal.Projected, d.Signal.Projected, 1e-9, "run %d, %s", run, d.Name)
		}
		assert.Empty(t, tab.Routes, "run %d", run)
	}
	assert.Zero(t, r.Stats().SpillStarts)
}
