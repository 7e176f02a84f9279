package balancer_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/balancer"
)

// TestFirstRunWeightlessHostJoins: a host with a weight in the first run is
// "part of the tier before the balancer started", but Weight 0 "marks a host that
// has none yet", as New marks one that just joined: in the first run either
// joins. It counts toward task churn (1 of 51 hosts is above ChurnShare 0.01)
// and is young in the next run (corrected at full gain outside the throttle,
// though three hosts are more imbalanced and the throttle moves one). Taking
// every unmarked host of the first run as already there, whatever its weight,
// passed the whole suite, and so did taking a New one with a weight so.
func TestFirstRunWeightlessHostJoins(t *testing.T) {
	for _, j := range []balancer.Host{
		{ID: "j", Cores: 32},
		{ID: "j", Cores: 32, New: true},
		{ID: "j", Cores: 32, New: true, Weight: 1, CPU: 0.5}, // New, whatever its weight
	} {
		t.Run(fmt.Sprintf("New %v, weight %v", j.New, j.Weight), func(t *testing.T) {
			b := mustNew(t, balancer.Config{})
			var hosts []balancer.Host
			for i := range 50 {
				hosts = append(hosts, balancer.Host{ID: fmt.Sprint("h", i), Cores: 32, Weight: 1, CPU: 0.5})
			}
			hosts = append(hosts, j)
			res, err := b.Step(t0, hosts)
			require.NoError(t, err)
			require.Equal(t, balancer.TaskChurn, res.State, res.Evidence)
			assert.Contains(t, res.Evidence, "1 of 51 hosts")
			assert.Equal(t, balancer.ReasonCapacity, res.Hosts[50].Reason)
			for i := range hosts {
				hosts[i].Weight, hosts[i].New = res.Hosts[i].New, false
			}
			for i := range 3 {
				hosts[i].CPU = 0.7
			}
			hosts[50].CPU = 0.6
			res, err = b.Step(t0, hosts)
			require.NoError(t, err)
			require.Equal(t, balancer.TaskChurn, res.State, res.Evidence)
			require.Equal(t, 1, res.Policy.MaxMoves)
			assert.Equal(t, balancer.ReasonLowered, res.Hosts[50].Reason, "young: %+v", res.Hosts[50])
			assert.Equal(t, balancer.ReasonLowered, res.Hosts[0].Reason, "the most imbalanced: %+v", res.Hosts[0])
			assert.Equal(t, balancer.ReasonThrottled, res.Hosts[1].Reason, "%+v", res.Hosts[1])
		})
	}
}
