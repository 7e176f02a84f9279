package balancer_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/balancer"
)

// TestNewHostCapacityInAnyUnit: Cores is "any proportional unit" and weights
// scale with TargetMedian, so a new host's capacity weight (cores times the
// tier's median weight per core, times NewHostFactor) relative to TargetMedian
// does not depend on either. Weight per core divided raw figures: large weights
// over small cores overflowed it, and the new host was given MaxWeight.
func TestNewHostCapacityInAnyUnit(t *testing.T) {
	tier := func(coreScale, weight float64) []balancer.Host {
		var hs []balancer.Host
		for i := range 12 {
			c := float64(8 + 8*(i%4))
			hs = append(hs, balancer.Host{ID: fmt.Sprint("h", i), CPU: 0.5,
				Cores: coreScale * c, Weight: weight * c / 16})
		}
		return append(hs, balancer.Host{ID: "new", Cores: coreScale * 16, New: true})
	}
	for _, tc := range []struct {
		name                    string
		coreScale, targetMedian float64
	}{
		{"plain", 1, 1},
		{"huge weights, small cores", 0x1p-30, 0x1p1000},
		{"tiny weights, huge cores", 0x1p1000, 0x1p-29},
		{"tiny cores", 0x1p-1000, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := mustNew(t, balancer.Config{TargetMedian: tc.targetMedian})
			res, err := b.Step(t0, tier(tc.coreScale, tc.targetMedian))
			require.NoError(t, err)
			d := res.Hosts[len(res.Hosts)-1]
			require.Equal(t, balancer.ReasonCapacity, d.Reason, "%+v", d)
			require.InDelta(t, 0.85, d.New/tc.targetMedian, 1e-12, "%+v", d)
			require.False(t, math.IsNaN(d.New))
		})
	}
}
