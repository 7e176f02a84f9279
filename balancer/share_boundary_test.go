package balancer_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/balancer"
)

// TestShareBoundariesExact: HotMaxShare is "the largest share of hosts still called
// outliers" and WideShare the share "above which" the tier is unsettled, so exactly
// that share (29 of 100 at 0.29) is still outliers and not yet unsettled. The share
// was multiplied out, and 0.29 x 100 = 28.999999999999996 in float64 moved both
// boundaries by one host.
func TestShareBoundariesExact(t *testing.T) {
	hosts := func(hot, cool float64, nHot, nCool int) []balancer.Host {
		var hs []balancer.Host
		for i := range 100 {
			cpu := 0.5
			switch {
			case i < nHot:
				cpu = hot
			case i < nHot+nCool:
				cpu = cool
			}
			hs = append(hs, balancer.Host{ID: fmt.Sprint("h", i), Cores: 32, Weight: 1, CPU: cpu})
		}
		return hs
	}
	t.Run("HotMaxShare", func(t *testing.T) {
		// 29 hosts at load 1.46 and efficiency 0.56; clusters are left to the hot
		// check (a separation of 1e9 sd is never reached).
		b := mustNew(t, balancer.Config{HotMaxShare: 0.29, BimodalSeparation: 1e9})
		res, err := b.Step(t0, hosts(0.9, 0, 29, 0))
		require.NoError(t, err)
		assert.Equal(t, balancer.HotOutliers, res.State, "%s", res.Evidence)
	})
	t.Run("WideShare", func(t *testing.T) {
		// 14 hosts at load 1.10 and 15 at 0.90 leave the deadband; the other 71
		// read 1.001.
		b := mustNew(t, balancer.Config{WideShare: 0.29})
		res, err := b.Step(t0, hosts(0.55, 0.45, 14, 15))
		require.NoError(t, err)
		assert.False(t, res.Policy.Wide, "%s", res.Evidence)
	})
}

// TestBimodalMinShareExact: BimodalMinShare is "the smallest share of hosts in each
// cluster", so a cluster of exactly that share (7 of 100 at 0.07) counts. The
// minimum count was rounded up from 0.07 x 100 = 7.000000000000001, to 8, and the
// split between the clusters was never tried.
func TestBimodalMinShareExact(t *testing.T) {
	var hosts []balancer.Host
	for i := range 100 {
		cpu := 0.5
		if i < 7 {
			cpu = 0.6 // efficiency 0.83, load 1.18: a cluster, not outliers
		}
		hosts = append(hosts, balancer.Host{ID: fmt.Sprint("h", i), Cores: 32, Weight: 1, CPU: cpu})
	}
	// Splits that mix the clusters stay below 10 sd; the true one is far above 20.
	b := mustNew(t, balancer.Config{BimodalMinShare: 0.07, BimodalSeparation: 20})
	res, err := b.Step(t0, hosts)
	require.NoError(t, err)
	assert.Equal(t, balancer.BimodalLoad, res.State, "%s", res.Evidence)
}
