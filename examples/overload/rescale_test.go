package main

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRescale: the measured run's arrivals are drawn at the nominal capacity
// before the warm-up and stretched to the calibrated one after it. Stretched
// by k, they must be the stream drawn at the capacity divided by k, up to
// rounding: the same tenants in the same order, arrival times within 10
// parts per million (the scenario's unit of service is a whole number of
// nanoseconds, which rounds its rate by up to 4 ppm at these capacities),
// deadlines moved with them, and none past the duration.
func TestRescale(t *testing.T) {
	const d = 2 * time.Second
	for _, k := range []float64{1, 1.12, 1.5} {
		nominal := 9000.0
		got := rescale(must(realScenario(d, nominal, 4).arrivals()), k, d)
		want := must(realScenario(d, nominal/k, 4).arrivals())
		// The count may differ by an arrival at the very end (rounding).
		require.InDelta(t, len(want), len(got), 1, "k %.2f", k)
		n := min(len(got), len(want))
		mismatched := 0
		for i := range n {
			g, w := got[i], want[i]
			if g.tenant != w.tenant || g.prio != w.prio || g.cost != w.cost {
				mismatched++
			}
			require.LessOrEqual(t, math.Abs(float64(g.arrive-w.arrive)), 1e-5*float64(w.arrive)+1, "k %.2f arrival %d", k, i)
			require.Equal(t, g.arrive+100*time.Millisecond, g.deadline)
			require.Less(t, g.arrive, d)
		}
		// A tenant is picked by comparing a draw with cumulative rates that
		// round differently at another capacity: a pick may land on a
		// neighbour, very rarely.
		assert.LessOrEqual(t, mismatched, n/10_000, "k %.2f: %d of %d picks differ", k, mismatched, n)
	}
}

func must(reqs []request, _ []string) []request { return reqs }
