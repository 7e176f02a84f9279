package failover_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/failover"
)

// TestParkedSpillerHotAtHomeShedsDownStep: b1's hot hosts fire it with a want
// of 0.03; once they cool and its home p90 settles at 0.70 (between Exit and
// Target) the share winds down by DownStep to 0.01, below DownStep. Then its
// hosts run at 0.845: under HotCPU as they are, above it (0.852) with the 1%
// sent away back home. "Hosts hot with their demand at home keep at least
// DownStep away": the region kept 0.01 away, for as long as the hosts stayed
// so, where a Local region with those hosts (at 0.852) sheds DownStep.
func TestParkedSpillerHotAtHomeShedsDownStep(t *testing.T) {
	r := mustNew(t, six())
	step := func(demand, cpu float64) failover.RegionDecision {
		ls := loads(0.4, nil)
		hs := make([]float64, 20)
		for i := range hs {
			hs[i] = cpu
		}
		ls[3] = failover.Load{Region: "b1", Demand: demand, Capacity: 1000, HostCPU: hs}
		tab, err := r.Step(t0, ls)
		require.NoError(t, err)
		return decision(tab, "b1")
	}
	home := 750 / 0.97 // a want of 0.03
	d := step(home, 0.9)
	require.Equal(t, failover.Spilling, d.Phase)
	require.InDelta(t, 0.03, d.Want, 1e-9)
	for range 15 {
		d = step(home, 0.5)
	}
	require.InDelta(t, 0.03, d.Want, 1e-9, "held MinHold runs")
	for range 40 {
		d = step(700, 0.5)
		if d.Want < 0.02 {
			break
		}
	}
	require.Equal(t, failover.Spilling, d.Phase)
	require.InDelta(t, 0.01, d.Want, 1e-9, "wound down below DownStep: %+v", d)
	for range 20 {
		d = step(700, 0.845)
		require.Equal(t, failover.Spilling, d.Phase)
		require.Zero(t, d.Signal.HotShare)
	}
	assert.GreaterOrEqual(t, d.Want, 0.02*(1-1e-9), "hot at home, parked region sheds less than DownStep: %+v", d)
	assert.InDelta(t, d.Want, d.Out, 1e-9)

	// the same hosts with the 1% back home, in a Local region: it fires and sheds DownStep
	local := mustNew(t, six())
	ls := loads(0.4, nil)
	hs := make([]float64, 20)
	for i := range hs {
		hs[i] = 0.845 + 0.01*0.7
	}
	ls[3] = failover.Load{Region: "b1", Demand: 700, Capacity: 1000, HostCPU: hs}
	tab, err := local.Step(t0, ls)
	require.NoError(t, err)
	assert.Equal(t, 0.02, decision(tab, "b1").Want)
}
