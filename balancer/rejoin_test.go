package balancer_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/balancer"
)

// TestReplacedTaskSameIDJoins: Host.New marks "a host that just joined (replaced
// task, fresh machine)", and a replaced task often keeps its ID. Five of 100 hosts
// replaced under their own IDs are five joins, as under fresh IDs: the tier is in
// task churn, and the replaced hosts are young on the next run (corrected at full
// gain outside the throttle).
func TestReplacedTaskSameIDJoins(t *testing.T) {
	for _, sameID := range []bool{false, true} {
		b := mustNew(t, balancer.Config{})
		var hosts []balancer.Host
		for i := range 100 {
			hosts = append(hosts, balancer.Host{ID: fmt.Sprint("h", i), Cores: 32, Weight: 1, CPU: 0.5})
		}
		_, err := b.Step(t0, hosts)
		require.NoError(t, err)
		for i := range 5 {
			id := hosts[i].ID
			if !sameID {
				id = fmt.Sprint("n", i)
			}
			hosts[i] = balancer.Host{ID: id, Cores: 32, New: true}
		}
		res, err := b.Step(t0, hosts)
		require.NoError(t, err)
		require.Equal(t, balancer.TaskChurn, res.State, "same ID %v: %s", sameID, res.Evidence)
		for i := range hosts {
			hosts[i].Weight, hosts[i].New, hosts[i].CPU = res.Hosts[i].New, false, 0.5
		}
		// the replaced hosts run warm (not outliers): young, all five are
		// corrected, not the two the throttle allows
		for i := range 5 {
			hosts[i].CPU = 0.6
		}
		res, err = b.Step(t0, hosts)
		require.NoError(t, err)
		for i := range 5 {
			require.Equal(t, balancer.ReasonLowered, res.Hosts[i].Reason, "same ID %v: %+v", sameID, res.Hosts[i])
		}
	}
}

// TestReplacedTaskSameIDNotHot: a hot outlier replaced by a new task under the same
// ID does not pass its hot flag on. The fresh task, at the tier's load, is not an
// outlier: the tier is not classified as having hot outliers for the HotHold runs
// the old flag would have lasted ("1 of 100 hosts hot, max/mean 1.000").
func TestReplacedTaskSameIDNotHot(t *testing.T) {
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
		hosts[i].Weight = res.Hosts[i].New
	}
	hosts[0] = balancer.Host{ID: "h0", Cores: 32, New: true} // the hot task replaced
	for run := range 3 {
		res, err = b.Step(t0, hosts)
		require.NoError(t, err)
		require.NotEqual(t, balancer.HotOutliers, res.State, "run %d: %s", run, res.Evidence)
		for i := range hosts {
			hosts[i].Weight, hosts[i].New, hosts[i].CPU = res.Hosts[i].New, false, 0.5
		}
	}
}
