package balancer_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/balancer"
)

// TestChurnWindowShrunkForgets: a host left out of a run is remembered for
// Config.ChurnWindow runs, the ChurnWindow in force. Two of 100 hosts miss five
// runs under the default window (12); SetConfig then narrows it to 2. Back in
// the next run, they were away longer than the window in force and join again
// (task churn, "2 of 100 hosts joined"), as under a balancer that ran with a
// window of 2 all along. The memory was purged only after the run's lookups, so
// they read as never gone and the tier as steady.
func TestChurnWindowShrunkForgets(t *testing.T) {
	var all []balancer.Host
	for i := range 100 {
		all = append(all, balancer.Host{ID: fmt.Sprint("h", i), Cores: 32, Weight: 1, CPU: 0.5})
	}
	for _, narrowed := range []bool{false, true} {
		cfg := balancer.Config{}
		if !narrowed {
			cfg.ChurnWindow = 2 // the window in force from the start
		}
		b := mustNew(t, cfg)
		_, err := b.Step(t0, all)
		require.NoError(t, err)
		for range 5 {
			_, err = b.Step(t0, all[2:]) // h0 and h1 miss their reports
			require.NoError(t, err)
		}
		if narrowed {
			require.NoError(t, b.SetConfig(balancer.Config{ChurnWindow: 2}))
		}
		res, err := b.Step(t0, all)
		require.NoError(t, err)
		require.Equal(t, balancer.TaskChurn, res.State, "narrowed %v: %s", narrowed, res.Evidence)
	}
}
