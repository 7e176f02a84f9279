package failover_test

import (
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/failover"
)

// comparison matches "x < y" in a Reason, the figures as printed.
var comparison = regexp.MustCompile(`([-+0-9.eE]+) < [a-z]+ ([-+0-9.eE]+)`)

// requireTrueReason checks that every comparison a Reason prints holds for
// the figures as printed: a reader compares what the line shows.
func requireTrueReason(t *testing.T, d failover.RegionDecision) {
	t.Helper()
	for _, m := range comparison.FindAllStringSubmatch(d.Reason, -1) {
		a, err := strconv.ParseFloat(m[1], 64)
		require.NoError(t, err, d.Reason)
		b, err := strconv.ParseFloat(m[2], 64)
		require.NoError(t, err, d.Reason)
		assert.Less(t, a, b, "reason reads as false: %q", d.Reason)
	}
}

// TestReasonRecoveredReadsTrue: b1 recovers with its projected home load a
// hair under Exit (0.6799 < 0.68); printed to two decimals the reason read
// "projected 0.68 < exit 0.68".
func TestReasonRecoveredReadsTrue(t *testing.T) {
	r := mustNew(t, six())
	step := func(u float64) failover.RegionDecision { return decision(stepNoHosts(t, r, u), "b1") }
	require.Equal(t, failover.Spilling, step(0.95).Phase)
	for range 40 { // past MinHold, the share wound down to 0
		require.Equal(t, failover.Spilling, step(0.68).Phase)
	}
	d := step(0.6799)
	require.Equal(t, failover.Local, d.Phase, d.Reason)
	assert.Contains(t, d.Reason, "recovered")
	requireTrueReason(t, d)
}

// TestReasonLocalReadsTrue: b1 stays home with its projected home load a hair
// under Enter; printed to two decimals it read "projected 0.80 < enter 0.80".
func TestReasonLocalReadsTrue(t *testing.T) {
	r := mustNew(t, six())
	d := decision(stepNoHosts(t, r, 0.7999), "b1")
	require.Equal(t, failover.Local, d.Phase, d.Reason)
	requireTrueReason(t, d)
	d = decision(stepNoHosts(t, r, 0.5), "b1")
	require.Equal(t, failover.Local, d.Phase, d.Reason)
	assert.Contains(t, d.Reason, "0.50 < enter 0.80", "two decimals when they tell")
	requireTrueReason(t, d)
}

// TestReasonNoDemandReadsTrue: a region without demand stays home whatever
// its Projected. b1 ramps with failover off (its trend rises to about 0.21
// a run), failover is turned on, and its next report has no demand and no
// host CPUs (a new baseline: the trend is kept), so Projected is about 1.07,
// above Enter. The reason read "projected 1.07 < enter 0.80".
func TestReasonNoDemandReadsTrue(t *testing.T) {
	cfg := six()
	cfg.Regions[3].Knobs = failover.Knobs{}
	r := mustNew(t, cfg)
	for _, u := range []float64{0.1, 0.5, 0.9} {
		_, err := r.Step(t0, loads(0.5, map[string]float64{"b1": u}))
		require.NoError(t, err)
	}
	require.NoError(t, r.SetConfig(six()))
	ls := loads(0.5, nil)
	ls[3].Demand, ls[3].HostCPU = 0, nil
	tab, err := r.Step(t0, ls)
	require.NoError(t, err)
	d := decision(tab, "b1")
	require.Equal(t, failover.Local, d.Phase, d.Reason)
	require.GreaterOrEqual(t, d.Signal.Projected, 0.80, "the case under test")
	requireTrueReason(t, d)
}
