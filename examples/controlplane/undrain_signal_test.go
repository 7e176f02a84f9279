package controlplane_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A gateway's CPU while it drains (clients skip it, so it idles) says nothing
// about its weight: once undrained, a gateway that costs what its peers cost
// keeps its weight, as it would had it never been drained.
func TestUndrainedGatewayKeepsItsWeight(t *testing.T) {
	p, ft := twoRegions(t, 1.5)
	k := 0
	run(t, p, ft, &k, 5)
	w := host(p.State(), "eu-1").Weight
	require.NoError(t, p.Drain("eu-1"))
	run(t, p, ft, &k, 5)
	assert.Equal(t, w, host(p.State(), "eu-1").Weight, "no signal while draining")
	require.NoError(t, p.Undrain("eu-1"))
	_, v := p.Routes()
	run(t, p, ft, &k, 5)
	st := p.State()
	assert.Equal(t, w, host(st, "eu-1").Weight, "an idle reading taken while draining moved the weight")
	_, v2 := p.Routes()
	assert.Equal(t, v, v2, "no new version after the undrain")
}

// So with a gateway unreachable long enough to drain whose process kept
// running: its first answer back measures the time clients skipped it.
func TestReturningGatewayKeepsItsWeight(t *testing.T) {
	p, ft := twoRegions(t, 1.5)
	k := 0
	run(t, p, ft, &k, 5)
	w := host(p.State(), "eu-1").Weight
	ft.set("eu-1", func(g *fakeGW) { g.down = true })
	run(t, p, ft, &k, 6)
	require.True(t, host(p.State(), "eu-1").Draining)
	ft.set("eu-1", func(g *fakeGW) { g.down = false })
	_, v := p.Routes()
	run(t, p, ft, &k, 5)
	assert.Equal(t, w, host(p.State(), "eu-1").Weight, "an idle reading taken while draining moved the weight")
	_, v2 := p.Routes()
	assert.Equal(t, v+1, v2, "one new version: the gateway no longer drains")
}
