package failover_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/failover"
)

// TestRemovedSpillTargetNamedNowhere: a1 takes a2's ring spill (a2's ring is
// a1 70, a3 30). SetConfig removes a1, and with it a1 from a2's ring (a ring
// may name only regions of the tier). From the next table on no route leaves
// or reaches a1 and no decision names it; a2 keeps spilling (its state stays),
// the Spilling gauge is the count of spilling decisions, and RouteChanges
// counts exactly the routes turned on or off, a1's among them.
func TestRemovedSpillTargetNamedNowhere(t *testing.T) {
	cfg := six()
	r := mustNew(t, cfg)
	hot := map[string]float64{"a2": 0.95}
	tab, err := r.Step(t0, loads(0.4, hot))
	require.NoError(t, err)
	require.Equal(t, failover.Spilling, decision(tab, "a2").Phase)
	require.Positive(t, decision(tab, "a1").In)
	require.True(t, slices.ContainsFunc(tab.Routes, func(rt failover.Route) bool {
		return rt.From == "a2" && rt.To == "a1" && rt.Mechanism == failover.MechRing
	}), "%+v", tab.Routes)

	cut := failover.Config{Tier: cfg.Tier}
	for _, reg := range cfg.Regions {
		if reg.Name == "a1" {
			continue
		}
		reg.Ring = slices.DeleteFunc(slices.Clone(reg.Ring), func(b failover.Backup) bool { return b.Region == "a1" })
		cut.Regions = append(cut.Regions, reg)
	}
	require.NoError(t, r.SetConfig(cut))
	before := r.Stats()
	prev := tab
	for run := range 20 {
		ls := without(loads(0.4, hot), "a1")
		tab, err = r.Step(t0, ls)
		require.NoError(t, err)
		checkTable(t, cut, ls, tab)
		for _, rt := range tab.Routes {
			assert.NotEqual(t, "a1", rt.From, "run %d: %+v", run, rt)
			assert.NotEqual(t, "a1", rt.To, "run %d: %+v", run, rt)
		}
		for _, d := range tab.Regions {
			assert.NotEqual(t, "a1", d.Name, "run %d", run)
		}
		assert.Equal(t, failover.Spilling, decision(tab, "a2").Phase, "run %d", run)
		assert.NotEmpty(t, tab.Out("a2"), "run %d: a2's spill found no other receiver", run)
		st := r.Stats()
		spilling := 0
		for _, d := range tab.Regions {
			spilling += int(btoi(d.Phase == failover.Spilling))
		}
		assert.Equal(t, spilling, st.Spilling, "run %d", run)
		assert.Equal(t, int64(st.SpillStarts)-int64(st.SpillEnds), int64(st.Spilling), "run %d", run)
		was, now := routeSet(prev), routeSet(tab)
		changed := 0
		for rt := range now {
			changed += int(btoi(!was[rt]))
		}
		for rt := range was {
			changed += int(btoi(!now[rt]))
		}
		assert.Equal(t, before.RouteChanges+uint64(changed), st.RouteChanges, "run %d", run)
		before, prev = st, tab
	}

	// a1 back: it comes back Local and may receive again; a2's spill is not
	// restarted or ended by it.
	require.NoError(t, r.SetConfig(cfg))
	tab, err = r.Step(t0, loads(0.4, hot))
	require.NoError(t, err)
	checkTable(t, cfg, loads(0.4, hot), tab)
	assert.Equal(t, failover.Local, decision(tab, "a1").Phase)
	assert.Equal(t, failover.Spilling, decision(tab, "a2").Phase)
	assert.Equal(t, before.SpillStarts, r.Stats().SpillStarts)
	assert.Equal(t, before.SpillEnds, r.Stats().SpillEnds)
}
