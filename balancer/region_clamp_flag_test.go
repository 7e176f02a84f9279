package balancer_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/balancer"
)

// TestRegionFactorCutByClampReportsClamped: a region whose median load calls for
// a factor beyond 1+WideMaxStep has it cut to 1+WideMaxStep, and its hosts'
// decisions say so (Clamped); a region whose factor is within the clamp does not.
// Before, Clamped looked only at the host's own step: a host of a cold region
// raised by the clamped region factor alone reported Clamped false, although
// its change was cut by the clamp.
func TestRegionFactorCutByClampReportsClamped(t *testing.T) {
	var hosts []balancer.Host
	for i := range 12 {
		h := balancer.Host{ID: fmt.Sprint("h", i), Cores: 10, Weight: 1, CPU: 0.8, Region: "hot"}
		if i < 6 {
			h.Region, h.CPU = "cold", 0.2
		}
		hosts = append(hosts, h)
	}
	b := mustNew(t, balancer.Config{})
	res, err := b.Step(t0, hosts)
	require.NoError(t, err)
	require.Equal(t, balancer.RegionalSkew, res.State)
	wide := b.Config().WideMaxStep
	// loads 0.4 and 1.6: the cold region's factor 0.4^-0.8 = 2.08 is cut to
	// 1+WideMaxStep = 1.5; the hot one's 1.6^-0.8 = 0.69 is above 1/1.5
	require.Greater(t, math.Pow(0.4, -0.8), 1+wide)
	require.Greater(t, math.Pow(1.6, -0.8), 1/(1+wide))
	for i, d := range res.Hosts {
		require.True(t, d.Region, "%+v", d)
		require.Equal(t, i < 6, d.Clamped, "%+v", d)
	}
}
