package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tierkit/tierkit/examples/controlplane"
)

// TestRegionOverloadCatchesFlapInMissedTick: region-overload judged the
// spill's episodes and the route's changes by comparing its recorded ticks
// one to the next, and a tick it did not record (a late poll makes the next
// tick follow at once) could hide a flap: here eu's spill ends and the route
// to us turns off in tick 4, which the record misses, and both are back on
// in tick 5. The record reads one clean episode (one local -> spilling
// transition, the route on once and off once: the checks passed); the plane's
// failover counters, which count every tick, read two, and the scenario must
// say so.
// (A simulated plane cannot be made to flap within one tick: its smoothing
// and the router's MinHold forbid it, so the state is scripted here.)
func TestRegionOverloadCatchesFlapInMissedTick(t *testing.T) {
	type script struct {
		tick                  uint64
		phase                 string
		out                   float64
		starts, ends, changes uint64
	}
	steps := []script{
		{1, "local", 0, 0, 0, 0}, {2, "local", 0, 0, 0, 0}, {3, "spilling", 0.2, 1, 0, 1},
		// tick 4 (local, no route) is never read
		{5, "spilling", 0.2, 2, 1, 3}, {6, "spilling", 0.1, 2, 1, 3}, {7, "local", 0, 2, 2, 4},
	}
	i := 0
	rr := &regionRecorder{region: "eu", backup: "us", state: func() controlplane.State {
		s := steps[i]
		return controlplane.State{Tick: s.tick,
			Regions: []controlplane.RegionState{{Name: "eu", Phase: s.phase, Out: s.out, Want: s.out}, {Name: "us", Phase: "local"}},
			Stats:   controlplane.Stats{SpillStarts: s.starts, SpillEnds: s.ends, RouteChanges: s.changes}}
	}}
	from := rr.read().Stats
	for i = range steps {
		rr.sample()
	}
	sm := rr.summarize(4)
	assert.Equal(t, uint64(1), sm.missed)
	r := &Report{}
	judgeFlapping(r, "us", statsSince(from, rr.read().Stats), sm, len(rr.ticks))
	var episodes, route bool
	for _, f := range r.Failures {
		episodes = episodes || strings.HasPrefix(f, "one spill episode")
		route = route || strings.HasPrefix(f, "the route to us turns on once and off once (the plane counted 4")
	}
	assert.True(t, episodes && route, "the flap in the missed tick is caught; failures: %q", r.Failures)
	assert.Len(t, r.Failures, 2, "the reversals read on the ticks recorded are none: %q", r.Failures)
	assert.Contains(t, r.Figures, "the record missed 1 of the 7 plane ticks between its first and its last (a late poll makes the next tick follow at once); the reversals of the wanted share are read on the ticks recorded")
}
