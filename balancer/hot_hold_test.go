package balancer_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/balancer"
)

// hotHoldStates runs a tier whose h0 is a hot outlier in run 1 only (corrected,
// it runs at the tier's load after) and returns the state of each run from 1 to
// runs; before run setAt+1 it applies cfg2 (setAt 0: never).
func hotHoldStates(t *testing.T, cfg balancer.Config, runs, setAt int, cfg2 balancer.Config) []balancer.State {
	t.Helper()
	b := mustNew(t, cfg)
	var hosts []balancer.Host
	for i := range 100 {
		hosts = append(hosts, balancer.Host{ID: fmt.Sprint("h", i), Cores: 32, Weight: 1, CPU: 0.5})
	}
	hosts[0].CPU = 0.9
	var got []balancer.State
	for run := 1; run <= runs; run++ {
		if run == setAt+1 && setAt > 0 {
			require.NoError(t, b.SetConfig(cfg2))
		}
		res, err := b.Step(t0, hosts)
		require.NoError(t, err)
		got = append(got, res.State)
		for i := range hosts {
			// corrected: no longer hot by either criterion
			hosts[i].Weight, hosts[i].CPU = res.Hosts[i].New, 0.5
		}
	}
	return got
}

// TestHotHoldLastsHotHoldRuns: HotHold is "how many runs a host stays flagged hot
// after it last met a hot criterion". A host hot in run 1 only, with HotHold 3, is
// still flagged in runs 2, 3 and 4 (the tier reads as having hot outliers) and no
// longer in run 5. Flagging it while fewer than HotHold runs had passed ("<" for
// "<=" in wasHot) ended the hold a run early, and the suite did not see it.
func TestHotHoldLastsHotHoldRuns(t *testing.T) {
	h, s := balancer.HotOutliers, balancer.SteadyDrift
	got := hotHoldStates(t, balancer.Config{HotHold: 3}, 6, 0, balancer.Config{})
	require.Equal(t, []balancer.State{h, h, h, h, s, s}, got)
	got = hotHoldStates(t, balancer.Config{HotHold: 1}, 4, 0, balancer.Config{})
	require.Equal(t, []balancer.State{h, h, s, s}, got, "HotHold 1, the least")
}

// TestHotHoldRaisedExtendsHold: SetConfig uses a Config "from the next run on",
// so a HotHold raised while a host is still flagged applies to it: hot in run 1,
// flagged through run 4 under HotHold 3, it is still flagged in run 5 once
// HotHold is 5, and through run 6. Forgetting the flag in the run its hold
// reached HotHold (">=" for ">" in markHot), rather than once it was past it,
// dropped it a run early; only a raised HotHold shows it, and the suite did
// not.
func TestHotHoldRaisedExtendsHold(t *testing.T) {
	h, s := balancer.HotOutliers, balancer.SteadyDrift
	got := hotHoldStates(t, balancer.Config{HotHold: 3}, 8, 4, balancer.Config{HotHold: 5})
	require.Equal(t, []balancer.State{h, h, h, h, h, h, s, s}, got)
}
