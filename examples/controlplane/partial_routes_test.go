package controlplane_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/controlplane"
	"github.com/tierkit/tierkit/rollout"
)

// partialOf returns the plane's routes document with member name replaced by
// value (JSON), or removed when value is "".
func partialOf(t *testing.T, doc []byte, name, value string) []byte {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(doc, &m))
	if value == "" {
		delete(m, name)
	} else {
		m[name] = json.RawMessage(value)
	}
	out, err := json.Marshal(m)
	require.NoError(t, err)
	return out
}

// DecodeRoutes read a missing or null "rollout", "gateways" or "failover" (and a
// null "Kill", or a failover table without "routes") as their zero values: no rules (everything direct), no gateway
// rings, no failover, kill switch off. A partial document (a plane bug, a cut
// answer that still parses) then flipped every follower's traffic. A document
// without a required part is refused, and Follow keeps the routes in force.
func TestPartialRoutesRefused(t *testing.T) {
	p, _ := twoRegions(t, 1.5)
	require.NoError(t, p.SetRollout(rollout.Config{Rules: []rollout.Rule{{Service: "s", Percent: 100}}, Kill: true}))
	good := wireOf(t, p)
	_, _, err := controlplane.DecodeRoutes(good)
	require.NoError(t, err)

	type edit struct{ name, value string }
	var bad [][]byte
	for _, e := range []edit{
		{"rollout", "null"}, {"rollout", ""},
		{"rollout", `{"Rules": [{"Service": "s", "Percent": 100}], "Kill": null}`},
		{"rollout", `{"Rules": [{"Service": "s", "Percent": null}], "Kill": true}`},
		{"gateways", "null"}, {"gateways", ""},
		{"failover", "null"}, {"failover", ""},
		{"failover", `{"now": "2026-01-01T00:00:00Z", "run": 1}`},
		{"failover", `{"now": "2026-01-01T00:00:00Z", "run": 1, "routes": null}`},
		{"epoch", ""}, {"epoch", "0"}, {"epoch", "null"},
	} {
		doc := partialOf(t, good, e.name, e.value)
		_, _, err := controlplane.DecodeRoutes(doc)
		require.ErrorIs(t, err, controlplane.ErrBadRoutes, "%s: %s", e.name, e.value)
		bad = append(bad, doc)
	}

	// A follower that got the good document keeps it through every partial one.
	c := followAnswers(t, append([][]byte{good}, bad...), nil)
	r, ok := c.Routes()
	require.True(t, ok)
	require.Equal(t, uint64(1), c.Stats().Swaps, "a partial document replaced the routes")
	require.True(t, r.Rollout.Config().Kill)
	require.Len(t, r.Rollout.Config().Rules, 1)
	require.Len(t, r.Gateways, 2)
	require.NotNil(t, r.Failover)
}
