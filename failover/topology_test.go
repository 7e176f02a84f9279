package failover_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/failover"
)

// TestRemovedSpillingRegionEndsSpill: a region removed by SetConfig while it spills
// ends its spill: SpillStarts and SpillEnds balance, no route leaves or reaches it,
// and the next run counts its routes as turned off.
func TestRemovedSpillingRegionEndsSpill(t *testing.T) {
	cfg := six()
	r := mustNew(t, cfg)
	tab, err := r.Step(t0, loads(0.4, map[string]float64{"b1": 0.95}))
	require.NoError(t, err)
	require.Equal(t, failover.Spilling, decision(tab, "b1").Phase)
	routes := len(tab.Routes)
	require.Positive(t, routes)
	before := r.Stats()

	cfg.Regions = append(cfg.Regions[:3:3], cfg.Regions[4:]...) // drop b1
	require.NoError(t, r.SetConfig(cfg))
	tab, err = r.Step(t0, without(loads(0.4, nil), "b1"))
	require.NoError(t, err)
	assert.Empty(t, tab.Routes)
	st := r.Stats()
	assert.Zero(t, st.Spilling)
	assert.Equal(t, st.SpillStarts, st.SpillEnds, "b1's spill never ends")
	assert.Equal(t, before.RouteChanges+uint64(routes), st.RouteChanges)

	// b1 back, quiet: it starts Local, and its old spill is not ended twice.
	require.NoError(t, r.SetConfig(six()))
	tab, err = r.Step(t0, loads(0.4, nil))
	require.NoError(t, err)
	assert.Equal(t, failover.Local, decision(tab, "b1").Phase)
	assert.Equal(t, st.SpillEnds, r.Stats().SpillEnds)
}

// TestRemovedReceiverGetsNoRoute: a receiver removed by SetConfig while it takes
// spill gets no route in the next table; the spill goes to the others.
func TestRemovedReceiverGetsNoRoute(t *testing.T) {
	cfg := six()
	r := mustNew(t, cfg)
	tab, err := r.Step(t0, loads(0.4, map[string]float64{"b1": 0.95}))
	require.NoError(t, err)
	require.Positive(t, decision(tab, "b2").In)
	cfg.Regions = append(cfg.Regions[:4:4], cfg.Regions[5:]...) // drop b2
	require.NoError(t, r.SetConfig(cfg))
	tab, err = r.Step(t0, without(loads(0.4, map[string]float64{"b1": 0.95}), "b2"))
	require.NoError(t, err)
	require.NotEmpty(t, tab.Routes)
	for _, rt := range tab.Routes {
		assert.NotEqual(t, "b2", rt.To, "%+v", rt)
	}
	assert.Equal(t, failover.Spilling, decision(tab, "b1").Phase)
	assert.Equal(t, uint64(1), r.Stats().SpillStarts)
	assert.Zero(t, r.Stats().SpillEnds)
}
