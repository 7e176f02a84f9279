package failover_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/failover"
)

// TestParkedSpillerShedsForHotHosts: b1 fired on demand, then its demand fell to a
// home p90 of 0.73, between Exit and Target: it stays Spilling, its share wound down
// to 0. Then every host takes 20 points of work that does not follow demand (k is
// 1.03, Home 0.72) and all of them run above HotCPU. The hot share "fires on its
// own", and a firing region sheds "at least DownStep": the same hosts in a Local
// region shed 2% on the next run. A region parked in Spilling at share 0 must not
// shed less than a Local one (nothing at all, for as long as the hosts stay hot).
func TestParkedSpillerShedsForHotHosts(t *testing.T) {
	r := mustNew(t, six())
	step := func(u, extra float64) failover.RegionDecision {
		ls := loads(0.4, map[string]float64{"b1": u})
		for i := range ls[3].HostCPU {
			ls[3].HostCPU[i] += extra
		}
		tab, err := r.Step(t0, ls)
		require.NoError(t, err)
		return decision(tab, "b1")
	}
	require.Equal(t, failover.Spilling, step(0.95, 0).Phase)
	var d failover.RegionDecision
	for range 60 {
		d = step(0.70, 0)
	}
	require.Equal(t, failover.Spilling, d.Phase, "home p90 above Exit: still spilling")
	require.Zero(t, d.Want, "wound down")
	for range 5 {
		d = step(0.70, 0.2)
		require.Equal(t, 1.0, d.Signal.HotShare)
		require.Less(t, d.Signal.Projected, 0.75)
	}
	assert.GreaterOrEqual(t, d.Want, 0.02, "hot hosts, parked region sheds nothing: %+v", d)
	assert.Positive(t, d.Out)

	// the same inputs, Local: fires and sheds DownStep
	local := mustNew(t, six())
	tab, err := local.Step(t0, func() []failover.Load {
		ls := loads(0.4, map[string]float64{"b1": 0.70})
		for i := range ls[3].HostCPU {
			ls[3].HostCPU[i] += 0.2
		}
		return ls
	}())
	require.NoError(t, err)
	assert.Equal(t, 0.02, decision(tab, "b1").Want)
}
