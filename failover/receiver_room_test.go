package failover_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/failover"
)

// TestHugeCapacityReceiverRoom: a receiver is filled only up to ReceiverMax at its
// own imbalance k, in any unit up to the float64 maximum. With a ReceiverMax above 1,
// Capacity x (ReceiverMax - projected) overflowed before the division by k, and the
// room capped at the float64 maximum let a receiver at k = 2 take 1.7 times its
// capacity (p90 3.4 against a ReceiverMax of 2): the same tier in a small unit
// routes a share of 0.56, not 1.
func TestHugeCapacityReceiverRoom(t *testing.T) {
	cfg := failover.Config{Tier: "t", ReceiverMax: 2, Regions: []failover.Region{
		{Name: "a", Knobs: failover.Knobs{Global: 100}},
		{Name: "b"},
	}}
	// nine hosts at 0.1 and one at 0.225: p90 over the mean k = 2
	cpus := []float64{0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.225}
	var shares []float64
	for _, unit := range []float64{1, 1e305} {
		r := mustNew(t, cfg)
		tab, err := r.Step(t0, []failover.Load{
			{Region: "a", Demand: 1700 * unit}, // down: everything wants to leave
			{Region: "b", Demand: 50 * unit, Capacity: 1000 * unit, HostCPU: cpus},
		})
		require.NoError(t, err)
		require.Len(t, tab.Routes, 1, "unit %g", unit)
		b := decision(tab, "b")
		require.InDelta(t, 0.1, b.Signal.Projected, 1e-12)
		// received over capacity, at k = 2, is at most ReceiverMax - projected
		assert.LessOrEqual(t, 2*b.In, 2-b.Signal.Projected+1e-9, "unit %g: %+v", unit, b)
		shares = append(shares, tab.Routes[0].Share)
	}
	assert.InDelta(t, shares[0], shares[1], 1e-9, "the share depends on the unit")
}
