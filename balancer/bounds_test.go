package balancer_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/balancer"
)

// TestBoundHeldHostReason: a host already at MaxWeight whose load asks for a raise
// (and one at MinWeight asking for a cut) keeps its weight, so its reason must not
// say "raised" or "lowered": it says the bound held it. Every host reported raised
// or lowered did move that way.
func TestBoundHeldHostReason(t *testing.T) {
	b := mustNew(t, balancer.Config{})
	var hosts []balancer.Host
	for i := range 100 {
		hosts = append(hosts, balancer.Host{ID: fmt.Sprint("h", i), Cores: 32, Weight: 1, CPU: 0.5})
	}
	hosts[0].Weight, hosts[0].CPU = 20, 0.4   // at MaxWeight, cool: wants more
	hosts[1].Weight, hosts[1].CPU = 0.05, 0.6 // at MinWeight, hot: wants less
	hosts[2].CPU = 0.6                        // in bounds, hot: lowered
	for run := range 3 {
		res, err := b.Step(t0, hosts)
		require.NoError(t, err)
		require.False(t, res.Recentered)
		for _, d := range res.Hosts {
			switch d.Reason {
			case balancer.ReasonRaised:
				assert.Greater(t, d.New, d.Old, "run %d: %+v", run, d)
			case balancer.ReasonLowered:
				assert.Less(t, d.New, d.Old, "run %d: %+v", run, d)
			}
		}
		for _, d := range res.Hosts[:2] {
			assert.Equal(t, d.Old, d.New, "run %d: %+v", run, d)
			assert.Equal(t, balancer.ReasonBounded, d.Reason, "run %d: %+v", run, d)
			assert.Equal(t, "bounded", d.Reason.String())
		}
		assert.Equal(t, balancer.ReasonLowered, res.Hosts[2].Reason, "run %d: %+v", run, res.Hosts[2])
		for i := range hosts {
			hosts[i].Weight = res.Hosts[i].New
		}
	}
}

// Two equal hosts (load 1, in the deadband) with weights 0.0625 and 3: the median
// (1.53) leaves the recenter band, recentering scales 0.0625 to 0.041, below
// MinWeight, and the bound sets it to 0.05. The host is reported bounded, not held
// (its weight moved), and the property checks accept that. Found by FuzzStep.
func TestHeldHostRecenteredBelowMinWeightIsBounded(t *testing.T) {
	b, err := balancer.New(balancer.Config{})
	require.NoError(t, err)
	hosts := []balancer.Host{
		{ID: "h0", Cores: 49, CPU: 0.375, Weight: 0.0625, Region: "r0"},
		{ID: "h1", Cores: 49, CPU: 0.375, Weight: 3, Region: "r0"},
	}
	res, err := b.Step(t0, hosts)
	require.NoError(t, err)
	require.True(t, res.Recentered)
	require.Equal(t, balancer.SteadyDrift, res.State)
	require.Equal(t, balancer.ReasonBounded, res.Hosts[0].Reason)
	require.Equal(t, b.Config().MinWeight*b.Config().TargetMedian, res.Hosts[0].New)
	require.Equal(t, balancer.ReasonHeld, res.Hosts[1].Reason)
	checkResult(t, b.Config(), hosts, res)
}
