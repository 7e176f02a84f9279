package failover_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/failover"
)

// TestExitIsStrict: Exit is the projected percentile CPU "below which a spilling
// region stops", and a region returns to Local "only when Projected is below
// Config.Exit". A region whose projected home load sits exactly at Exit (68% of
// capacity, no host CPUs: k = 1) keeps spilling; just below, it stops.
func TestExitIsStrict(t *testing.T) {
	r := mustNew(t, six())
	step := func(u float64) failover.RegionDecision { return decision(stepNoHosts(t, r, u), "b1") }
	require.Equal(t, failover.Spilling, step(0.95).Phase)
	for run := range 40 { // past MinHold, the share wound down to 0
		d := step(0.68)
		require.Equal(t, 0.68, d.Signal.Projected)
		require.Equal(t, failover.Spilling, d.Phase, "run %d: %s", run, d.Reason)
	}
	d := step(0.67)
	assert.Equal(t, failover.Local, d.Phase, d.Reason)
}
