package balancer_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/balancer"
)

// TestRegionFactorCancelsClampedCorrection: in an unsettled tier with regional skew,
// a hot host of a cold region takes its region's raise (clamped to 1+WideMaxStep)
// and its own cut (clamped to 1/(1+WideMaxStep)); the two cancel, so its weight is
// unchanged although its load is far outside the deadband. It reports ReasonHeld,
// as ReasonHeld's doc says, with Clamped and Region set.
func TestRegionFactorCancelsClampedCorrection(t *testing.T) {
	var hosts []balancer.Host
	for i := range 12 {
		h := balancer.Host{ID: fmt.Sprint("h", i), Cores: 10, Weight: 1, CPU: 0.6, Region: "r1"}
		if i < 6 {
			h.Region, h.CPU = "r0", 0.2
		}
		hosts = append(hosts, h)
	}
	hosts[5].CPU = 0.9 // the hot host of the cold region
	b := mustNew(t, balancer.Config{})
	res, err := b.Step(t0, hosts)
	require.NoError(t, err)
	require.Equal(t, balancer.RegionalSkew, res.State)
	require.True(t, res.Policy.Wide)
	d := res.Hosts[5]
	require.Greater(t, d.Load, 1.9)
	require.Equal(t, balancer.ReasonHeld, d.Reason, "%+v", d)
	require.True(t, d.Clamped && d.Region, "%+v", d)
	// unchanged but for the recentering every weight shares
	require.True(t, res.Recentered)
	require.InDelta(t, res.Hosts[0].New/1.5, d.New, 1e-12, "%+v", res.Hosts)
}
