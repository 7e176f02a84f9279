package balancer_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/balancer"
)

// TestRegionFactorCancelsAtAnyWeight: the hot host of a cold region, whose
// region raise and own cut are clamped to opposite ends, is held whatever its
// weight. Old x (1+s) x 1/(1+s) is not Old in float64 for about a third of the
// weights (0.7 x 1.5 x (1/1.5) is one ulp below 0.7): such a host reported
// lowered or raised and counted in Changed, its weight moved by one ulp.
func TestRegionFactorCancelsAtAnyWeight(t *testing.T) {
	for _, w := range []float64{0.3, 0.7, 1, 3} {
		var hosts []balancer.Host
		for i := range 12 {
			h := balancer.Host{ID: fmt.Sprint("h", i), Cores: 10, Weight: w, CPU: 0.6, Region: "r1"}
			if i < 6 {
				h.Region, h.CPU = "r0", 0.2
			}
			hosts = append(hosts, h)
		}
		hosts[5].CPU = 0.9 // the hot host of the cold region
		b := mustNew(t, balancer.Config{TargetMedian: w})
		res, err := b.Step(t0, hosts)
		require.NoError(t, err)
		require.Equal(t, balancer.RegionalSkew, res.State)
		require.True(t, res.Policy.Wide)
		d := res.Hosts[5]
		require.True(t, d.Clamped && d.Region, "w=%v: %+v", w, d)
		require.Equal(t, balancer.ReasonHeld, d.Reason, "w=%v: %+v", w, d)
		// the other 11 hosts take their region's factor; the held one is only
		// recentered, as every weight is
		require.Equal(t, 11, res.Changed, "w=%v", w)
	}
}
