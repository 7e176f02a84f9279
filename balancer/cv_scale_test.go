package balancer_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/balancer"
)

// TestFlatInitialInAnyCoresUnit: Cores is "any proportional unit" and weights
// scale with TargetMedian, so a fresh tier (equal weights, uneven cores) is
// FlatInitial whatever the unit. The coefficients of variation behind that check
// summed raw values: cores or weights near the float64 maximum overflowed (cv NaN)
// and tiny cores underflowed their squared deviations (cv 0), and the tier was not
// reset to capacity weights.
func TestFlatInitialInAnyCoresUnit(t *testing.T) {
	tier := func(coreScale, weight float64) []balancer.Host {
		var hs []balancer.Host
		for i := range 12 {
			hs = append(hs, balancer.Host{ID: fmt.Sprint("h", i), CPU: 0.4 + 0.02*float64(i),
				Cores: coreScale * float64(8+8*(i%4)), Weight: weight})
		}
		return hs
	}
	for _, tc := range []struct {
		name                    string
		coreScale, targetMedian float64
	}{
		{"plain", 1, 1},
		{"tiny cores", 0x1p-570, 1},
		{"huge cores", 0x1p1018, 1},
		{"huge weights", 1, 0x1p1022},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := mustNew(t, balancer.Config{TargetMedian: tc.targetMedian})
			res, err := b.Step(t0, tier(tc.coreScale, tc.targetMedian))
			require.NoError(t, err)
			require.Equal(t, balancer.FlatInitial, res.State, "%s", res.Evidence)
			for _, d := range res.Hosts {
				require.False(t, math.IsNaN(d.New) || math.IsInf(d.New, 0), "%+v", d)
			}
		})
	}
}
