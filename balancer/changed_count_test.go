package balancer_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/balancer"
)

// TestResultChangedCountsMovedHosts: Result.Changed counts the hosts whose own
// weight the run moved, not the hosts whose weight share changed. Lowering one
// host changes every host's share; rescaling every weight onto TargetMedian
// changes every published weight and no share. The doc said "hosts whose weight
// share changed", which neither case matches.
func TestResultChangedCountsMovedHosts(t *testing.T) {
	var hosts []balancer.Host
	for i := range 10 {
		hosts = append(hosts, balancer.Host{ID: fmt.Sprint("h", i), Cores: 32, Weight: 1, CPU: 0.5})
	}
	hosts[0].CPU = 0.6 // hot: lowered; the other nine are in the deadband
	res, err := mustNew(t, balancer.Config{}).Step(t0, hosts)
	require.NoError(t, err)
	require.False(t, res.Recentered)
	require.Equal(t, balancer.ReasonLowered, res.Hosts[0].Reason)
	assert.Equal(t, 1, res.Changed)
	assert.Equal(t, len(hosts), sharesChanged(res), "one move changes every share")

	for i := range hosts {
		hosts[i].Weight, hosts[i].CPU = 2, 0.5 // median 2: off TargetMedian 1, balanced
	}
	res, err = mustNew(t, balancer.Config{}).Step(t0, hosts)
	require.NoError(t, err)
	require.True(t, res.Recentered)
	for _, d := range res.Hosts {
		require.Equal(t, 1.0, d.New, "%+v", d)
	}
	assert.Equal(t, 0, res.Changed, "a recenter alone moves no host")
	assert.Equal(t, 0, sharesChanged(res))
}

// sharesChanged counts the hosts whose weight share differs before and after.
func sharesChanged(res balancer.Result) int {
	var oldSum, newSum float64
	for _, d := range res.Hosts {
		oldSum += d.Old
		newSum += d.New
	}
	n := 0
	for _, d := range res.Hosts {
		if d.Old/oldSum != d.New/newSum {
			n++
		}
	}
	return n
}
