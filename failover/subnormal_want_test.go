package failover_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/failover"
)

// TestSubnormalDemandOutWithinWant: a region's routed share is computed back
// from absolute demand, Want x Demand / Demand. With a subnormal demand the
// product has too few bits (0.75 x 5e-324 rounds to 5e-324), so the region
// sent away all of its demand (Out 1) while it wanted 0.75, against the
// documented "never sends away more than its wanted share".
func TestSubnormalDemandOutWithinWant(t *testing.T) {
	a := spillSubnormal(t, 1e300)
	assert.LessOrEqual(t, a.Out, a.Want, "%+v", a)
}

// TestSubnormalDemandUnplacedWithinWant: what found no receiver is computed back
// from absolute demand too, and with a subnormal demand Want x Demand / Demand
// read 1: a region wanting 0.75 away reported all of its demand unplaced, more
// than it wanted to send.
func TestSubnormalDemandUnplacedWithinWant(t *testing.T) {
	a := spillSubnormal(t, 0) // b down: no room anywhere
	require.InDelta(t, 0.75, a.Want, 1e-12)
	assert.LessOrEqual(t, a.Out+a.Unplaced, a.Want, "%+v", a)
}

// spillSubnormal steps region a (subnormal demand, a hot host) beside region
// b of capacity bCap and returns a's decision, which must be Spilling.
func spillSubnormal(t *testing.T, bCap float64) failover.RegionDecision {
	t.Helper()
	r, err := failover.New(failover.Config{Regions: []failover.Region{
		{Name: "a", Knobs: failover.Knobs{Global: 100}},
		{Name: "b"},
	}})
	require.NoError(t, err)
	tab, err := r.Step(t0, []failover.Load{
		{Region: "a", Demand: 5e-324, Capacity: 5e-324, HostCPU: []float64{0, 0, 0.9}},
		{Region: "b", Demand: 1, Capacity: bCap},
	})
	require.NoError(t, err)
	a := tab.Regions[0]
	require.Equal(t, failover.Spilling, a.Phase)
	return a
}
