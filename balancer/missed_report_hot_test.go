package balancer_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/balancer"
)

// TestMissedReportKeepsHotFlag: a hot outlier whose load report is lost for one
// run keeps its hot flag when it reports again, as it keeps its join memory
// (TestMissedReportIsNoJoin). Its correction hides it from the hot criteria
// for a few runs, and the hold (HotHold) keeps the tier classified as having
// hot outliers meanwhile; a missed report dropped the flag, so the tier read
// as steady drift the run the host came back, unlike a tier whose report
// arrived.
func TestMissedReportKeepsHotFlag(t *testing.T) {
	state := func(miss bool) balancer.State {
		b := mustNew(t, balancer.Config{})
		var hosts []balancer.Host
		for i := range 100 {
			hosts = append(hosts, balancer.Host{ID: fmt.Sprint("h", i), Cores: 32, Weight: 1, CPU: 0.5})
		}
		hosts[0].CPU = 0.9
		res, err := b.Step(t0, hosts)
		require.NoError(t, err)
		require.Equal(t, balancer.HotOutliers, res.State, res.Evidence)
		for i := range hosts {
			hosts[i].Weight, hosts[i].CPU = res.Hosts[i].New, 0.5 // corrected: no longer hot
		}
		in := hosts
		if miss {
			in = hosts[1:]
		}
		_, err = b.Step(t0, in)
		require.NoError(t, err)
		res, err = b.Step(t0, hosts)
		require.NoError(t, err)
		return res.State
	}
	want := state(false)
	require.Equal(t, balancer.HotOutliers, want, "the hold keeps the classification")
	require.Equal(t, want, state(true), "a missed report")
}
