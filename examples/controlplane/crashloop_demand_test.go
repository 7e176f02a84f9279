package controlplane_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A gateway that restarts between every two polls (a crash loop under a
// supervisor) is never measured, yet it is up at every poll and clients
// keep its share of the ring. It was counted as "a gateway that joined since
// the last tick" at every tick, so its region's demand estimate kept its
// last value for good: a region whose clients' demand doubled was still
// read at its old demand, and the failover router never saw the rise.
func TestCrashLoopingGatewayDoesNotFreezeDemand(t *testing.T) {
	p, ft := twoRegions(t, 1.0)
	k := 0
	tick := func() {
		ft.advance(time.Second)
		ft.set("eu-3", func(g *fakeGW) { g.uptime, g.cpu, g.commands = 0.5, 0.1, 1 }) // restarted again
		k++
		require.NoError(t, p.Tick(context.Background(), t0.Add(time.Duration(k)*time.Second)))
	}
	for range 8 {
		tick()
	}
	before := region(p.State(), "eu").Demand
	require.Greater(t, before, 0.0)
	ft.setDemand("eu", 2.0)
	for range 8 {
		tick()
	}
	after := region(p.State(), "eu").Demand
	// eu-1 and eu-2 serve two thirds of the doubled demand: the estimate
	// must follow it (about 2x before), not stay where it was.
	assert.Greater(t, after, 1.8*before, "eu's demand estimate stayed at %.3f", before)
	assert.Equal(t, "up", host(p.State(), "eu-3").Health.String())
}
