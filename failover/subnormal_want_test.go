package failover_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/failover"
)

// TestSubnormalDemandOutWithinWant: a region's routed share is computed back
// from absolute demand, Want x Demand / Demand. With a subnormal demand the
// product has too few bits (0.02 x 1.5e-322, 0.6 of the least subnormal, rounds
// to 5e-324), so the region sent away a third more than it wanted (Out 1/30
// for a Want of 0.02), against the documented "never sends away more than its
// wanted share".
func TestSubnormalDemandOutWithinWant(t *testing.T) {
	a := spillSubnormal(t, 1e300)
	assert.LessOrEqual(t, a.Out, a.Want, "%+v", a)
}

// TestSubnormalDemandUnplacedWithinWant: what found no receiver is computed back
// from absolute demand too, and with a subnormal demand Want x Demand / Demand
// read 1/30: a region wanting 0.02 away reported more than that unplaced,
// more than it wanted to send.
func TestSubnormalDemandUnplacedWithinWant(t *testing.T) {
	a := spillSubnormal(t, 0) // b down: no room anywhere
	require.InDelta(t, 0.02, a.Want, 1e-12)
	assert.LessOrEqual(t, a.Out+a.Unplaced, a.Want, "%+v", a)
}

// spillSubnormal steps region a (a subnormal demand of 30 times the least one,
// a hot host: it fires and sheds DownStep, 0.02) beside region b of capacity
// bCap and returns a's decision, which must be Spilling. (A subnormal
// capacity is refused: see TestSubnormalCapacityRefused.)
func spillSubnormal(t *testing.T, bCap float64) failover.RegionDecision {
	t.Helper()
	r, err := failover.New(failover.Config{Regions: []failover.Region{
		{Name: "a", Knobs: failover.Knobs{Global: 100}},
		{Name: "b"},
	}})
	require.NoError(t, err)
	tab, err := r.Step(t0, []failover.Load{
		{Region: "a", Demand: 30 * 5e-324, Capacity: 1, HostCPU: []float64{0, 0, 0.9}},
		{Region: "b", Demand: 1, Capacity: bCap},
	})
	require.NoError(t, err)
	a := tab.Regions[0]
	require.Equal(t, failover.Spilling, a.Phase)
	return a
}
