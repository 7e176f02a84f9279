package failover_test

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/failover"
)

// minCapacity is the smallest normal float64, the documented least nonzero Capacity.
const minCapacity = 0x1p-1022

// TestSubnormalCapacityRefused: a receiver is filled only up to ReceiverMax, but a
// subnormal Capacity has too few bits to hold its headroom: 0.75 x 5e-324 rounds
// up to 5e-324, and the receiver was filled to 100% of its capacity (In 1, p90
// 1.0 against a ReceiverMax of 0.75). Such a capacity is refused, as an infinite
// one is, with a *LoadError that changes nothing.
func TestSubnormalCapacityRefused(t *testing.T) {
	for _, c := range []float64{math.SmallestNonzeroFloat64, 2.4e-322, math.Nextafter(minCapacity, 0)} {
		r := mustNew(t, tinyTier())
		_, err := r.Step(t0, tinyLoads(c))
		var le *failover.LoadError
		require.True(t, errors.As(err, &le), "capacity %g: %v", c, err)
		assert.Equal(t, "b", le.Region)
		assert.Contains(t, le.Reason, "capacity")
		assert.Equal(t, uint64(1), r.Stats().Rejected)
		assert.Zero(t, r.Stats().Runs)
	}
}

// TestLeastCapacityReceiverWithinMax: from the least normal Capacity up, a
// receiver's headroom has the bits it needs: it takes no more than ReceiverMax.
func TestLeastCapacityReceiverWithinMax(t *testing.T) {
	for _, c := range []float64{minCapacity, 3 * minCapacity, 1e-300} {
		r := mustNew(t, tinyTier())
		tab, err := r.Step(t0, tinyLoads(c))
		require.NoError(t, err, "capacity %g", c)
		b := decision(tab, "b")
		require.Positive(t, b.In, "capacity %g", c)
		assert.LessOrEqual(t, b.In, 0.75+1e-12, "capacity %g: %+v", c, b)
	}
}

// tinyTier is region a, failover on, beside receiver b.
func tinyTier() failover.Config {
	return failover.Config{Tier: "t", Regions: []failover.Region{
		{Name: "a", Knobs: failover.Knobs{Global: 100}},
		{Name: "b"},
	}}
}

// tinyLoads has a down (everything wants to leave) and b idle at capacity c.
func tinyLoads(c float64) []failover.Load {
	return []failover.Load{
		{Region: "a", Demand: 1, Capacity: 0},
		{Region: "b", Demand: 0, Capacity: c},
	}
}
