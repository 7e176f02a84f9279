package failover_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/failover"
)

// TestRemovedSpillerLeavesTheGauge: SetConfig counts the spill end of a removed
// region "at once" (Stats.SpillEnds); the Spilling gauge must drop with it. It
// kept counting the region, which is no longer in the tier, until the next run,
// so a snapshot in between read one region spilling with as many ends as starts.
func TestRemovedSpillerLeavesTheGauge(t *testing.T) {
	cfg := six()
	r := mustNew(t, cfg)
	tab, err := r.Step(t0, loads(0.4, map[string]float64{"b1": 0.95}))
	require.NoError(t, err)
	require.Equal(t, failover.Spilling, decision(tab, "b1").Phase)
	require.Equal(t, 1, r.Stats().Spilling)

	cfg.Regions = append(cfg.Regions[:3:3], cfg.Regions[4:]...) // drop b1
	require.NoError(t, r.SetConfig(cfg))
	st := r.Stats()
	assert.Equal(t, st.SpillStarts, st.SpillEnds)
	assert.Zero(t, st.Spilling, "b1 is gone, and its spill ended")
}
