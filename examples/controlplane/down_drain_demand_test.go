package controlplane_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A gateway whose polls fail still serves its share of the ring until it
// drains, and its region's demand counts its last measurement meanwhile.
// At the tick its failed polls drain it, the interval just measured was no
// different (clients had not been told to skip it), yet the plane dropped
// its share from the demand: eu's read a third low (a sixth, smoothed) at
// the very tick its capacity fell, as TestDrainKeepsRegionDemand showed
// for a drain by hand.
func TestDownDrainKeepsRegionDemand(t *testing.T) {
	p, ft := twoRegions(t, 1.5)
	k := 0
	run(t, p, ft, &k, 8)
	ft.set("eu-1", func(g *fakeGW) { g.down = true })
	for range 6 {
		run(t, p, ft, &k, 1)
		eu := region(p.State(), "eu")
		assert.InDelta(t, 1.5, eu.Demand, 1e-9, "tick %d, eu-1 draining %v", k, host(p.State(), "eu-1").Draining)
	}
}
