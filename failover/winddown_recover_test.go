package failover_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/failover"
)

// TestWindDownRecoversAtDownStep: a region wound down to DownStep recovers at
// the next run once its home load is below Exit. The steps' rounding could
// leave the share a few ulps above DownStep (0.22 less 0.02 ten times is
// 0.020000000000000021), which the recovery check (share <= DownStep) read
// as more than DownStep: the region wound down to 0 first and recovered a
// run late, while a share of 0.1 (ending a few ulps below) recovered on time.
func TestWindDownRecoversAtDownStep(t *testing.T) {
	for _, want := range []float64{0.1, 0.12, 0.22, 0.24, 0.3, 0.5} {
		t.Run(fmt.Sprint(want), func(t *testing.T) {
			r := mustNew(t, six())
			step := func(u float64) failover.RegionDecision { return decision(stepNoHosts(t, r, u), "b1") }
			d := step(0.75 / (1 - want))
			require.Equal(t, failover.Spilling, d.Phase)
			require.InDelta(t, want, d.Want, 1e-12)
			atDownStep := false
			for run := 1; run < 200; run++ {
				d = step(0.5)
				if atDownStep {
					require.Equal(t, failover.Local, d.Phase, "run %d: %s", run, d.Reason)
					return
				}
				require.Equal(t, failover.Spilling, d.Phase, "run %d", run)
				atDownStep = d.Want <= 0.02*(1+1e-9)
			}
			t.Fatal("never wound down to DownStep")
		})
	}
}
