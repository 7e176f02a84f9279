package controlplane_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A gateway unreachable long enough to drain is skipped by clients: the
// interval before its first answer back saw its peers serve all of its
// region's demand. The plane still added the gateway's last measurement
// from before it went down (or, for a process that kept running, its CPU
// averaged over the whole time since its last answer) to what the region
// served, and eu's demand read a third high (a sixth, smoothed) when a
// restarted gateway came back.
func TestReturningGatewayKeepsRegionDemand(t *testing.T) {
	for _, restarted := range []bool{false, true} {
		p, ft := twoRegions(t, 1.5)
		k := 0
		run(t, p, ft, &k, 8)
		ft.set("eu-1", func(g *fakeGW) { g.down = true })
		run(t, p, ft, &k, 3)
		require.True(t, host(p.State(), "eu-1").Draining)
		run(t, p, ft, &k, 6) // clients skip it: eu-2 and eu-3 serve eu's demand
		require.InDelta(t, 1.5, region(p.State(), "eu").Demand, 0.01)
		ft.set("eu-1", func(g *fakeGW) {
			g.down = false
			if restarted {
				g.uptime, g.cpu, g.commands = 0.5, 0.01, 1
			}
		})
		for range 4 {
			run(t, p, ft, &k, 1)
			assert.InDelta(t, 1.5, region(p.State(), "eu").Demand, 0.01, "restarted %v, tick %d", restarted, k)
		}
	}
}
