package controlplane_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStatsCountFailoverTransitions: the plane's Stats carry the failover
// router's spill starts, spill ends and route changes, counted over every
// tick, so a reader that samples the state between ticks (and may miss one)
// can tell from their difference whether a region flapped. Here eu spills to
// us once and comes back: one start, one end, the route on and off.
func TestStatsCountFailoverTransitions(t *testing.T) {
	p, ft := twoRegions(t, 1.2)
	k := 0
	run(t, p, ft, &k, 3)
	assert.Zero(t, p.Stats().SpillStarts)
	assert.Zero(t, p.Stats().RouteChanges)
	for d := 1.2; d < 3.2 && region(p.State(), "eu").Phase != "spilling"; d += 0.05 {
		ft.setDemand("eu", d)
		run(t, p, ft, &k, 1)
	}
	require.Equal(t, "spilling", region(p.State(), "eu").Phase, "eu never spilled")
	st := p.Stats()
	assert.Equal(t, uint64(1), st.SpillStarts)
	assert.Zero(t, st.SpillEnds)
	assert.Equal(t, uint64(1), st.RouteChanges, "the route eu -> us turned on")

	ft.setDemand("eu", 0.9)
	for i := 0; i < 150 && region(p.State(), "eu").Phase != "local"; i++ {
		run(t, p, ft, &k, 1)
	}
	require.Equal(t, "local", region(p.State(), "eu").Phase, "eu never came back")
	st = p.Stats()
	assert.Equal(t, uint64(1), st.SpillStarts)
	assert.Equal(t, uint64(1), st.SpillEnds)
	assert.Equal(t, uint64(2), st.RouteChanges, "the route eu -> us turned on, then off")

	rec := httptest.NewRecorder()
	p.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/state", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	var doc struct {
		Stats map[string]uint64 `json:"stats"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &doc))
	assert.Equal(t, map[string]uint64{"spill_starts": 1, "spill_ends": 1, "route_changes": 2},
		map[string]uint64{"spill_starts": doc.Stats["spill_starts"], "spill_ends": doc.Stats["spill_ends"], "route_changes": doc.Stats["route_changes"]})
	assert.Equal(t, st, p.State().Stats, "State carries the same counters")
}
