package controlplane_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/controlplane"
)

// A restarted gateway's counters start over from zero, so everything they hold
// at its first poll after the restart was counted since the previous poll. The
// plane dropped that sample's counts (it starts the next measurement only):
// each restart lost up to a cadence of the gateway's requests and sheds from
// the tenants' totals, which are counted "since the plane started", and read
// no rate for that tick.
func TestRestartedGatewayKeepsItsCounts(t *testing.T) {
	p, ft := twoRegions(t, 1.5)
	ft.set("eu-1", func(g *fakeGW) { g.shedRate = map[string]float64{"a": 100} })
	k := 0
	run(t, p, ft, &k, 5) // the first poll starts the count: 4 intervals of 100
	require.Equal(t, uint64(400), tenant(p.State(), "a").Requests)

	// The process restarts just after that poll: its new counters hold the
	// next interval's 100 requests at the next poll.
	ft.set("eu-1", func(g *fakeGW) {
		g.uptime, g.cpu, g.commands = 0, 0, 0
		g.tenants = map[string]controlplane.TenantSample{}
	})
	run(t, p, ft, &k, 1)
	st := p.State()
	a := tenant(st, "a")
	assert.Equal(t, uint64(500), a.Requests, "the restarted process's first interval was not counted")
	assert.Equal(t, uint64(500), a.Shed)
	assert.InDelta(t, 100.0, a.RequestRate, 1e-9)
	assert.InDelta(t, 100.0, host(st, "eu-1").ShedRate, 1e-9)
	assert.Positive(t, host(st, "eu-1").Rate)

	run(t, p, ft, &k, 4)
	assert.Equal(t, uint64(900), tenant(p.State(), "a").Requests)
}

func tenant(st controlplane.State, name string) controlplane.TenantState {
	for _, t := range st.Tenants {
		if t.Name == name {
			return t
		}
	}
	return controlplane.TenantState{}
}
