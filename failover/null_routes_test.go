package failover_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/failover"
)

// A table without "routes", or with "routes": null, decoded as a table with no
// routes: every region's spill went home, as if failover were off, though
// MarshalJSON always writes the member ("routes": [] for no routes). A plane bug
// that still parses flipped every follower's failover traffic. Null members of a
// route read as zero values, which the route checks already refuse.
func TestUnmarshalRefusesNullOrMissingRoutes(t *testing.T) {
	for _, give := range []string{
		`{"now": "2026-01-01T00:00:00Z", "run": 3}`,
		`{"now": "2026-01-01T00:00:00Z", "run": 3, "routes": null}`,
		`{"routes": [], "routes": null}`,
		`{}`,
		`{"routes": [null]}`,
		`{"routes": [{"from": "a", "to": "b", "share": null, "mechanism": "ring"}]}`,
		`{"routes": [{"from": null, "to": "b", "share": 0.5, "mechanism": "ring"}]}`,
		`{"routes": [{"from": "a", "to": null, "share": 0.5, "mechanism": "ring"}]}`,
		`{"routes": [{"from": "a", "to": "b", "share": 0.5, "mechanism": null}]}`,
	} {
		tab, err := failover.NewTable(t0, 7, []failover.Route{{From: "a", To: "b", Share: 0.5, Mechanism: failover.MechRing}})
		require.NoError(t, err)
		err = json.Unmarshal([]byte(give), &tab)
		require.ErrorIs(t, err, failover.ErrInvalidTable, "%s", give)
		assert.Equal(t, uint64(7), tab.Run, "%s: the table is unchanged on error", give)
		assert.Len(t, tab.Routes, 1, "%s: the table is unchanged on error", give)
	}

	// What the encoder writes for a table with no routes still decodes.
	empty, err := failover.NewTable(t0, 4, nil)
	require.NoError(t, err)
	data, err := json.Marshal(empty)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"routes":[]`)
	var back failover.Table
	require.NoError(t, json.Unmarshal(data, &back))
	assert.Empty(t, back.Routes)
	assert.Equal(t, uint64(4), back.Run)
}
