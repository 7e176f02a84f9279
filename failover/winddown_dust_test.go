package failover_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/failover"
)

// TestWindDownLeavesNoDust: a share winds down by DownStep per run, and the
// steps' rounding can leave it a few ulps above DownStep: b1 firing at 0.8333
// wants 0.10000000000000009, which winds down to 0.020000000000000077 and then
// to 7.6e-17, published as two routes of 3.8e-17 each. The last step now goes
// to 0.
func TestWindDownLeavesNoDust(t *testing.T) {
	for _, tc := range []struct {
		fire     float64 // b1's home load in the run it fires (k = 1: no host CPUs)
		downStep float64
	}{
		{0.75 / 0.9, 0}, // wants 0.1 + 9e-17: dust before the fix
		{0.9375, 0},     // wants 0.2 - 4e-17: a step below DownStep, no dust
		{0.9, 0},        // wants 1/6: ends at 0.0067
		{0.75 / 0.9, 0.025},
		{0.75 / 0.7, 0.03}, // wants 0.3 less an ulp or so
	} {
		t.Run(fmt.Sprint(tc.fire, "/", tc.downStep), func(t *testing.T) {
			cfg := six()
			cfg.DownStep = tc.downStep
			r := mustNew(t, cfg)
			for run := range 60 {
				u := 0.70 // between Exit and Target: winds down, does not recover
				if run == 0 {
					u = tc.fire
				}
				tab := stepNoHosts(t, r, u)
				d := decision(tab, "b1")
				require.Equal(t, failover.Spilling, d.Phase, "run %d: %s", run, d.Reason)
				assert.True(t, d.Want == 0 || d.Want > 1e-9, "run %d: want %v", run, d.Want)
				for _, rt := range tab.Routes {
					assert.Greater(t, rt.Share, 1e-9, "run %d: dust route %+v", run, rt)
				}
			}
		})
	}
}
