package controlplane_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A gateway added takes its share of its region's clients at once, but its
// first poll only sets the start of its first measurement: what the others
// served over that interval was read as all of the region's demand, which
// dipped by the newcomer's share (0.85 of 3.85, smoothed: 1.5 read 1.33) for
// the failover router. Its weight meanwhile is the documented capacity-scaled
// one: cores x the region's median weight per core x NewHostFactor.
func TestJoinKeepsRegionDemand(t *testing.T) {
	p, ft := twoRegions(t, 1.5)
	k := 0
	run(t, p, ft, &k, 8)
	require.InDelta(t, 1.5, region(p.State(), "eu").Demand, 1e-9)
	g := gw("eu", 4, 2)
	ft.add(g, -1)
	require.NoError(t, p.AddGateway(g))
	_, v := p.Routes()
	run(t, p, ft, &k, 1) // eu-4's first poll: no measurement
	assert.InDelta(t, 1.5, region(p.State(), "eu").Demand, 1e-9, "eu-4 served eu's clients unmeasured")
	assert.InDelta(t, 3.0, region(p.State(), "eu").Capacity, 1e-9, "eu-4 is no measured capacity yet")
	assert.InDelta(t, 2*1*0.85, host(p.State(), "eu-4").Weight, 1e-9)
	_, v2 := p.Routes()
	assert.Equal(t, v, v2, "the first tick after a join publishes no new weight")
	for range 3 {
		run(t, p, ft, &k, 1)
		assert.InDelta(t, 1.5, region(p.State(), "eu").Demand, 1e-9)
		assert.InDelta(t, 5.0, region(p.State(), "eu").Capacity, 1e-9)
	}
}
