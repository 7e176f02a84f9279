package failover_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/failover"
)

// TestParkedRefireHolds: a spiller parked at share 0 (home p90 between Exit and
// Target) whose hosts get hot for one run sheds DownStep, "as a Local region with
// those hosts would fire". The share "falls only ... no sooner than MinHold runs
// after the last rise": its hold restarts with that rise, as a Local region's
// does when it fires. It returned to Local on the very next run instead, when
// the load fell below Exit, so its routes turned on for one run and off again.
func TestParkedRefireHolds(t *testing.T) {
	step := func(r *failover.Router, u, extra float64) failover.RegionDecision {
		ls := loads(0.4, map[string]float64{"b1": u})
		for i := range ls[3].HostCPU {
			ls[3].HostCPU[i] += extra
		}
		tab, err := r.Step(t0, ls)
		require.NoError(t, err)
		return decision(tab, "b1")
	}
	parked := mustNew(t, six())
	require.Equal(t, failover.Spilling, step(parked, 0.95, 0).Phase)
	var d failover.RegionDecision
	for range 60 {
		d = step(parked, 0.70, 0)
	}
	require.Equal(t, failover.Spilling, d.Phase)
	require.Zero(t, d.Want, "wound down")
	local := mustNew(t, six())
	for range 60 {
		require.Equal(t, failover.Local, step(local, 0.70, 0).Phase)
	}

	// one run of hot hosts fires both, then the load is below Exit
	for _, r := range []*failover.Router{parked, local} {
		d = step(r, 0.70, 0.2)
		require.Equal(t, failover.Spilling, d.Phase)
		require.Equal(t, 0.02, d.Want)
	}
	for run := 1; run < 15; run++ {
		l := step(local, 0.60, 0)
		require.Equal(t, failover.Spilling, l.Phase, "run %d: %s", run, l.Reason)
		require.Equal(t, 0.02, l.Want, "run %d", run)
		d = step(parked, 0.60, 0)
		require.Equal(t, l.Phase, d.Phase, "run %d after the rise: %s", run, d.Reason)
		require.Equal(t, l.Want, d.Want, "run %d after the rise", run)
	}
}
