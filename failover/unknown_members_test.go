package failover_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/failover"
)

// TestTableUnmarshalIgnoresUnknownMembers pins the documented forward
// compatibility of the wire form: members this version does not know, in the
// table or in a route, are ignored, so a control plane upgraded first can add
// members without every older client refusing its tables and keeping a stale
// one. A misspelt member is unknown too: a misspelt "routes" is refused as
// missing, a misspelt route member leaves a zero that the route checks refuse,
// and a misspelt "now", "run" or "regions" reads as its zero value. Names match
// case-insensitively, as encoding/json matches them.
func TestTableUnmarshalIgnoresUnknownMembers(t *testing.T) {
	want, err := failover.NewTable(time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC), 7,
		[]failover.Route{{From: "a", To: "b", Share: 0.25, Mechanism: failover.MechRing}})
	require.NoError(t, err)

	var got failover.Table
	require.NoError(t, json.Unmarshal([]byte(`{"now":"2024-01-02T03:04:05Z","run":7,"epoch":3,
		"routes":[{"from":"a","to":"b","share":0.25,"mechanism":"ring","weight":9}],
		"extra":{"nested":[1,2]}}`), &got))
	assert.Equal(t, want, got)

	var typo failover.Table
	require.NoError(t, json.Unmarshal([]byte(`{"nwo":"2024-01-02T03:04:05Z","rnu":7,
		"routes":[{"from":"a","to":"b","share":0.25,"mechanism":"ring"}]}`), &typo))
	assert.Equal(t, want.Routes, typo.Routes)
	assert.True(t, typo.Now.IsZero())
	assert.Zero(t, typo.Run)

	var upper failover.Table
	require.NoError(t, json.Unmarshal([]byte(`{"Run":7,
		"ROUTES":[{"From":"a","To":"b","Share":0.25,"Mechanism":"ring"}]}`), &upper))
	assert.Equal(t, want.Routes, upper.Routes)

	for _, give := range []string{
		`{"run":7,"rotues":[]}`,
		`{"run":7,"routes":[{"from":"a","to":"b","shaer":0.25,"mechanism":"ring"}]}`,
		`{"run":7,"routes":[{"from":"a","to":"b","share":0.25,"mechansim":"ring"}]}`,
		`{"run":7,"routes":[{"form":"a","to":"b","share":0.25,"mechanism":"ring"}]}`,
	} {
		var tab failover.Table
		assert.ErrorIs(t, json.Unmarshal([]byte(give), &tab), failover.ErrInvalidTable, give)
	}
}
