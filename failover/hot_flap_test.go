package failover_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/failover"
)

// TestHotFiredSpillDoesNotFlap: b1 serves a light demand (30% of capacity) but a
// quarter of its hosts carry a co-tenant and run at 85.5%: its hot share fires it
// (home p90 0.58, below Exit). Its hosts report what they serve under the table in
// force, so the DownStep it sheds brings them to 84.9%, just under HotCPU. Demand
// and co-tenant are steady: the pressure that fired the region is still there at
// home demand, and "hysteresis keeps routes from flapping". The region must not go
// back to Local after MinHold runs and fire again on the next one, over and over.
func TestHotFiredSpillDoesNotFlap(t *testing.T) {
	r := mustNew(t, six())
	out := 0.0 // b1's share sent away in the table in force
	var d failover.RegionDecision
	for run := range 100 {
		ls := loads(0.4, nil)
		served := 0.3 * (1 - out)
		hs := make([]float64, 20)
		for i := range hs {
			hs[i] = served
			if i >= 15 {
				hs[i] += 0.555 // the co-tenant
			}
		}
		ls[3] = failover.Load{Region: "b1", Demand: 300, Capacity: 1000, HostCPU: hs}
		tab, err := r.Step(t0, ls)
		require.NoError(t, err)
		d = decision(tab, "b1")
		require.Less(t, d.Signal.Projected, 0.68, "run %d: %+v", run, d)
		out = d.Out
	}
	st := r.Stats()
	assert.Equal(t, uint64(1), st.SpillStarts, "b1 fired %d times under steady load; last: %+v", st.SpillStarts, d)
	assert.Zero(t, st.SpillEnds)
	assert.Equal(t, failover.Spilling, d.Phase)
}
