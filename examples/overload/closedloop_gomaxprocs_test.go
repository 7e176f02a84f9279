package main

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestClosedLoopIndependentOfGOMAXPROCS: the closed-loop model runs on
// explicit time with its own number of cores, so what it offers and measures
// must not depend on the machine's GOMAXPROCS. Its arrivals came from
// realScenario, whose unit of service is taken for GOMAXPROCS slots, with the
// slots then set to the model's cores: on a machine with GOMAXPROCS other
// than the model's 2 cores the mix was offered at 2/GOMAXPROCS of the model's
// capacity (a quarter of it on 8 cores).
func TestClosedLoopIndependentOfGOMAXPROCS(t *testing.T) {
	c := defaultLoop(400 * time.Millisecond)
	c.Warmup = 100 * time.Millisecond
	prev := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(prev)
	var res []loopResult
	for _, procs := range []int{c.Cores, 4 * c.Cores} {
		runtime.GOMAXPROCS(procs)
		r, err := runLoop(c)
		require.NoError(t, err)
		res = append(res, r)
	}
	// Offered at the model's capacity: 135% of it in requests of cost 1.
	want := 1.35 * res[0].Capacity * c.Duration.Seconds()
	for i, r := range res {
		got := float64(r.Offered[0] + r.Offered[1])
		require.InEpsilon(t, want, got, 0.1, "run %d: offered %v requests, want about %.0f", i, got, want)
	}
	require.Equal(t, res[0], res[1], "the same run whatever GOMAXPROCS")
}
