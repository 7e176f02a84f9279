package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/balancer"
)

// TestBalancerClaimsAreChecked: the balancer section printed every run's
// max/mean, hosts above 100% and state, and the totals, with no check: a
// balancer that left flat weights alone (max/mean 2.8 and 35 hosts above
// 100% at every run), called the flat start steady-drift or the 6 hot hosts
// anything but hot-outliers, was printed under a title promising guarded
// steps and tier-state classification, with exit status 0. Found by a
// review.
func TestBalancerClaimsAreChecked(t *testing.T) {
	good := func() ([]balancerRun, balancer.Stats) {
		runs := make([]balancerRun, balancerRuns)
		st := balancer.Stats{Runs: balancerRuns}
		for i := range runs {
			runs[i] = balancerRun{state: balancer.SteadyDrift, maxMean: 1.02, changed: 2, moved: 0.0002}
			switch {
			case i == 0:
				runs[i] = balancerRun{state: balancer.FlatInitial, maxMean: 2.8, over: 35, changed: 197, moved: 0.17}
			case i == 1:
				runs[i].maxMean = 1.16
			case i >= balancerHotRun:
				runs[i].state = balancer.HotOutliers
				if i < balancerHotRun+balancerHotSettleRuns {
					runs[i].maxMean = 1.44
				}
			}
			st.Changed += uint64(runs[i].changed)
			st.Keyspace += runs[i].moved
		}
		return runs, st
	}
	runs, st := good()
	require.NoError(t, verify(balancerClaims(runs, st)...))

	runs[0].state = balancer.SteadyDrift
	err := verify(balancerClaims(runs, st)...)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "flat weights at start: flat-initial at run 0, not steady-drift")

	runs, st = good()
	runs[20].state = balancer.SteadyDrift
	err = verify(balancerClaims(runs, st)...)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "hot-outliers from run 12 on, not steady-drift at run 20")

	runs, st = good()
	for i := range runs { // weights never move off flat
		runs[i].maxMean, runs[i].over = 2.8, 35
	}
	err = verify(balancerClaims(runs, st)...)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "settled (max/mean <= 1.06, no host >100%) from run 2, not max/mean 2.800 with 35 hosts >100% at run 2")
	assert.Contains(t, err.Error(), "from run 15, not max/mean 2.800")

	runs, st = good()
	st.Changed++
	require.Error(t, verify(balancerClaims(runs, st)...), "the total is not the runs' sum")
	require.Error(t, verify(balancerClaims(runs[:29], st)...), "a run missing")
}
