package controlplane_test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A gateway that restarts keeps serving its share of the ring, but the plane
// dropped its measurement and its cores from the failover signal until two
// polls had measured it again: its region read a third less capacity with
// most of its (smoothed) demand, the trend fired, and a region at 60% CPU
// spilled a quarter of its clients for a routine restart, held there by the
// router's hysteresis. When every gateway restarted, no capacity read as a
// region down, which spills all its backups can take.
func TestRestartDoesNotSpill(t *testing.T) {
	p, ft := twoRegions(t, 1.8) // 60% on each of 3 one-core gateways
	k := 0
	run(t, p, ft, &k, 30)
	r, _ := p.Routes()
	require.Zero(t, spill(r, "eu"))
	for _, restarted := range [][]string{{"eu-1"}, {"eu-1", "eu-2", "eu-3"}} {
		for _, id := range restarted {
			ft.set(id, func(g *fakeGW) { g.uptime, g.cpu, g.commands = 0.5, 0, 0 })
		}
		for range 5 {
			run(t, p, ft, &k, 1)
			eu := region(p.State(), "eu")
			r, _ := p.Routes()
			require.Zero(t, spill(r, "eu"), "tick %d after restarting %v: phase %s, demand %.3f, capacity %.3f, signal %+v",
				k, restarted, eu.Phase, eu.Demand, eu.Capacity, eu.Signal)
		}
	}
}
