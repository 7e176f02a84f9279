package balancer_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/balancer"
)

// TestChurnWindowCountsWindowRuns: ChurnWindow is "how many runs a join counts
// toward task churn". Five hosts joining 100 in run 2 with ChurnWindow 2 make
// runs 2 and 3 task churn, and run 4 not: two runs, the join run included.
// Counting a join while its age was at most ChurnWindow ("<=" for "<" in view)
// kept it a run longer, and the suite did not see it.
func TestChurnWindowCountsWindowRuns(t *testing.T) {
	for _, window := range []int{1, 2, 5} {
		b := mustNew(t, balancer.Config{ChurnWindow: window})
		var hosts []balancer.Host
		for i := range 100 {
			hosts = append(hosts, balancer.Host{ID: fmt.Sprint("h", i), Cores: 32, Weight: 1, CPU: 0.5})
		}
		res, err := b.Step(t0, hosts)
		require.NoError(t, err)
		require.Equal(t, balancer.SteadyDrift, res.State, res.Evidence)
		for i := range 5 {
			hosts = append(hosts, balancer.Host{ID: fmt.Sprint("n", i), Cores: 32, New: true})
		}
		var got []balancer.State
		for range window + 2 {
			res, err := b.Step(t0, hosts)
			require.NoError(t, err)
			got = append(got, res.State)
			for i := range hosts {
				hosts[i].Weight, hosts[i].New, hosts[i].CPU = res.Hosts[i].New, false, 0.5
			}
		}
		want := make([]balancer.State, window+2)
		for i := range want {
			want[i] = balancer.SteadyDrift
			if i < window {
				want[i] = balancer.TaskChurn
			}
		}
		require.Equal(t, want, got, "ChurnWindow %d, from the join run on", window)
	}
}
