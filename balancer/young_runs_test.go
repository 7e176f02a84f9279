package balancer_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/balancer"
)

// TestYoungRunsCountsRunsAfterJoining: YoungRuns is "how many runs after joining a
// host is corrected at full gain and outside the throttle". A host marked New is
// young in the YoungRuns runs after its join run (in that run it takes a capacity
// weight). A host that joins with a weight and unmarked (a fresh ID the caller
// gave a weight, or one back after more than ChurnWindow runs away) was also young
// in its join run: YoungRuns+1 runs outside the throttle, two at the least
// setting of 1.
//
// h0 runs at load 1.1 among ten hosts at 1.2 and the throttle moves two hosts a
// run, so h0 is lowered only while young, and throttled otherwise.
func TestYoungRunsCountsRunsAfterJoining(t *testing.T) {
	for _, tt := range []struct {
		name   string
		young  int
		rejoin bool // h0 joins again after ChurnWindow runs away, else joins fresh
		isNew  bool // h0 joins marked New, without a weight
	}{
		{"marked New, YoungRuns 1", 1, false, true},
		{"marked New, YoungRuns 3", 3, false, true},
		{"weighted, YoungRuns 1", 1, false, false},
		{"weighted, YoungRuns 3", 3, false, false},
		{"back after ChurnWindow, YoungRuns 1", 1, true, false},
		{"back after ChurnWindow, YoungRuns 3", 3, true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// ChurnShare 0.5: the join is not task churn, the steady policy applies
			b := mustNew(t, balancer.Config{YoungRuns: tt.young, ChurnShare: 0.5})
			var hosts []balancer.Host
			for i := range 100 {
				hosts = append(hosts, balancer.Host{ID: fmt.Sprint("h", i), Cores: 32, Weight: 1, CPU: 0.5})
			}
			for i := 2; i < 12; i++ {
				hosts[i].CPU = 0.6
			}
			step := func(in []balancer.Host) balancer.Result {
				t.Helper()
				res, err := b.Step(t0, in)
				require.NoError(t, err)
				return res
			}
			if tt.rejoin {
				step(hosts)
			}
			for range 1 + 12*btoi(tt.rejoin) { // h0 absent for ChurnWindow+1 runs
				step(hosts[1:])
			}
			hosts[0].CPU = 0.55
			if tt.isNew {
				hosts[0] = balancer.Host{ID: "h0", Cores: 32, New: true}
			}
			var got []balancer.Reason
			for range tt.young + 3 {
				res := step(hosts)
				require.Equal(t, balancer.SteadyDrift, res.State, res.Evidence)
				got = append(got, res.Hosts[0].Reason)
				hosts[0] = balancer.Host{ID: "h0", Cores: 32, Weight: 1, CPU: 0.55}
			}
			lowered := 0
			for _, r := range got {
				if r == balancer.ReasonLowered {
					lowered++
				}
			}
			assert.Equal(t, tt.young, lowered, "reasons run by run from the join: %v", got)
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
