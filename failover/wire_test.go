package failover_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/failover"
)

// A table computed by the Router survives the JSON round trip: same routes, same
// decisions, and every unit picks the same region.
func TestTableJSONRoundTrip(t *testing.T) {
	r, err := failover.New(six())
	require.NoError(t, err)
	var tab failover.Table
	for run := range 12 { // push a2 and b1 over the edge
		tab, err = r.Step(t0, loads(0.5, map[string]float64{"a2": 0.6 + 0.05*float64(run), "b1": 0.95}))
		require.NoError(t, err)
	}
	require.NotEmpty(t, tab.Routes)
	data, err := json.Marshal(tab)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"mechanism":"ring"`)
	assert.Contains(t, string(data), `"Phase":"spilling"`)

	var back failover.Table
	require.NoError(t, json.Unmarshal(data, &back))
	assert.Equal(t, tab.Routes, back.Routes)
	assert.Equal(t, tab.Run, back.Run)
	assert.True(t, tab.Now.Equal(back.Now))
	assert.Equal(t, tab.Regions, back.Regions)
	for i := range 2000 {
		u := "client-" + strconv.Itoa(i)
		for _, from := range []string{"a2", "b1", "a1"} {
			require.Equal(t, tab.Pick(from, u), back.Pick(from, u))
		}
	}
}

func TestNewTable(t *testing.T) {
	tests := []struct {
		name   string
		give   []failover.Route
		want   []failover.Route // sorted; nil when an error is wanted
		errSub string
	}{
		{name: "empty", give: nil, want: nil},
		{
			name: "sorted",
			give: []failover.Route{
				{From: "b", To: "a", Share: 0.1, Mechanism: failover.MechRing},
				{From: "a", To: "c", Share: 0.2, Mechanism: failover.MechGlobal},
				{From: "a", To: "c", Share: 0.1, Mechanism: failover.MechRing},
			},
			want: []failover.Route{
				{From: "a", To: "c", Share: 0.1, Mechanism: failover.MechRing},
				{From: "a", To: "c", Share: 0.2, Mechanism: failover.MechGlobal},
				{From: "b", To: "a", Share: 0.1, Mechanism: failover.MechRing},
			},
		},
		{name: "self", give: []failover.Route{{From: "a", To: "a", Share: 0.1, Mechanism: failover.MechRing}}, errSub: "itself"},
		{name: "empty name", give: []failover.Route{{From: "", To: "a", Share: 0.1, Mechanism: failover.MechRing}}, errSub: "empty"},
		{name: "zero share", give: []failover.Route{{From: "a", To: "b", Share: 0, Mechanism: failover.MechRing}}, errSub: "share"},
		{name: "NaN share", give: []failover.Route{{From: "a", To: "b", Share: math.NaN(), Mechanism: failover.MechRing}}, errSub: "share"},
		{name: "share above 1", give: []failover.Route{{From: "a", To: "b", Share: 1.5, Mechanism: failover.MechRing}}, errSub: "share"},
		{name: "mechanism", give: []failover.Route{{From: "a", To: "b", Share: 0.5, Mechanism: 9}}, errSub: "mechanism"},
		{
			name: "twice",
			give: []failover.Route{
				{From: "a", To: "b", Share: 0.1, Mechanism: failover.MechRing},
				{From: "a", To: "b", Share: 0.2, Mechanism: failover.MechRing},
			},
			errSub: "twice",
		},
		{
			name: "sum above 1",
			give: []failover.Route{
				{From: "a", To: "b", Share: 0.6, Mechanism: failover.MechRing},
				{From: "a", To: "c", Share: 0.6, Mechanism: failover.MechRing},
			},
			errSub: "sum",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab, err := failover.NewTable(t0, 3, tt.give)
			if tt.errSub != "" {
				require.ErrorIs(t, err, failover.ErrInvalidTable)
				assert.Contains(t, err.Error(), tt.errSub)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, tab.Routes)
			assert.Equal(t, uint64(3), tab.Run)
		})
	}
}

func TestTableUnmarshalRejects(t *testing.T) {
	tests := []struct {
		name, give string
		typed      bool // the error wraps ErrInvalidTable (else it is a JSON error)
	}{
		{"syntax", `{"routes": [`, false},
		{"mechanism", `{"routes": [{"from": "a", "to": "b", "share": 0.5, "mechanism": "teleport"}]}`, true},
		{"order", `{"routes": [{"from": "b", "to": "a", "share": 0.5, "mechanism": "ring"},
			{"from": "a", "to": "b", "share": 0.5, "mechanism": "ring"}]}`, true},
		{"share", `{"routes": [{"from": "a", "to": "b", "share": 2, "mechanism": "ring"}]}`, true},
		{"phase", `{"routes": [], "regions": [{"Name": "a", "Phase": "melting"}]}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab := failover.Table{Run: 7}
			err := json.Unmarshal([]byte(tt.give), &tab)
			require.Error(t, err)
			assert.Equal(t, tt.typed, errors.Is(err, failover.ErrInvalidTable), "%v", err)
			assert.Equal(t, uint64(7), tab.Run, "the table is unchanged on error")
		})
	}
}

// FuzzTableJSON decodes arbitrary bytes as a table: no panic, and a table that decodes
// satisfies the route invariants, re-encodes, and decodes to the same table (time,
// run, routes and region decisions), whose encoding is the same bytes again.
func FuzzTableJSON(f *testing.F) {
	f.Add([]byte(`{"now":"2026-01-01T00:00:00Z","run":3,"routes":[{"from":"a","to":"b","share":0.25,"mechanism":"ring"}]}`))
	f.Add([]byte(`{"routes":[{"from":"a","to":"b","share":0.6,"mechanism":"mega"},{"from":"a","to":"c","share":0.5,"mechanism":"global"}]}`))
	f.Add([]byte(`{"routes":null,"regions":[{"Name":"x","Phase":"local"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var tab failover.Table
		if json.Unmarshal(data, &tab) != nil {
			return
		}
		sum := map[string]float64{}
		for _, r := range tab.Routes {
			require.NotEqual(t, r.From, r.To)
			require.True(t, r.Share > 0 && r.Share <= 1)
			sum[r.From] += r.Share
		}
		for from, s := range sum {
			require.LessOrEqual(t, s, 1+1e-9, from)
		}
		again, err := json.Marshal(tab)
		require.NoError(t, err)
		var back failover.Table
		require.NoError(t, json.Unmarshal(again, &back))
		require.Equal(t, tab.Routes, back.Routes)
		require.True(t, tab.Now.Equal(back.Now), "now %v, decoded back %v", tab.Now, back.Now)
		require.Equal(t, tab.Run, back.Run)
		require.Equal(t, tab.Regions, back.Regions)
		twice, err := json.Marshal(back)
		require.NoError(t, err)
		require.Equal(t, string(again), string(twice), "the encoding of a decoded table is not stable")
	})
}

// A control plane that publishes a fixed table: 20% of region a's clients go to b.
func ExampleNewTable() {
	tab, err := failover.NewTable(t0.UTC(), 1, []failover.Route{{From: "a", To: "b", Share: 0.2, Mechanism: failover.MechRing}})
	if err != nil {
		panic(err)
	}
	data, _ := json.Marshal(tab)
	var back failover.Table
	if err := json.Unmarshal(data, &back); err != nil {
		panic(err)
	}
	moved := 0
	for i := range 10000 {
		if back.Pick("a", strconv.Itoa(i)) == "b" {
			moved++
		}
	}
	fmt.Printf("%s\n%.2f of a's clients served by b\n", data, float64(moved)/10000)
	// Output:
	// {"now":"2023-11-14T22:13:20Z","run":1,"routes":[{"from":"a","to":"b","share":0.2,"mechanism":"ring"}]}
	// 0.20 of a's clients served by b
}

// Region names are any non-empty strings, but encoding/json replaces bytes that are
// not UTF-8 with U+FFFD: a table routing "r\xff" decoded as routing "r\ufffd", so its
// clients stayed home, and two such names could decode as one. A table JSON cannot
// carry must not marshal (nor be built by NewTable).
func TestTableNonUTF8NamesDoNotRoundTripSilently(t *testing.T) {
	routes := []failover.Route{
		{From: "r\xff", To: "s", Share: 0.5, Mechanism: failover.MechGlobal},
		{From: "r\xfe", To: "s", Share: 0.5, Mechanism: failover.MechGlobal},
	}
	tab := failover.Table{Run: 1, Routes: routes[:1]}
	data, err := json.Marshal(tab)
	if err == nil {
		var back failover.Table
		if err := json.Unmarshal(data, &back); err == nil {
			for i := range 200 {
				u := strconv.Itoa(i)
				for _, rt := range tab.Routes {
					require.Equal(t, tab.Pick(rt.From, u), back.Pick(rt.From, u), "%s", data)
				}
			}
		}
	}
	_, err = failover.NewTable(t0, 1, routes)
	require.ErrorIs(t, err, failover.ErrInvalidTable)

	// A Router refuses such a region name where it comes in, in its Config (see
	// TestNonUTF8RegionNameRefusedByConfig).
}

// TestNonUTF8RegionNameRefusedByConfig: a Router's region names come from its
// Config. One that is not UTF-8 was accepted: the table's routes then refused to
// marshal while its region decisions marshaled with the name silently changed to
// U+FFFD (a decision for "b\ufffd", a region of no Config). The Config now refuses
// the name, and MarshalJSON a hand-built decision with one, as it does a route.
func TestNonUTF8RegionNameRefusedByConfig(t *testing.T) {
	cfg := six()
	cfg.Regions[3].Name = "b\xff"
	_, err := failover.New(cfg)
	require.ErrorIs(t, err, failover.ErrInvalidConfig)
	assert.Contains(t, err.Error(), "not UTF-8")
	r := mustNew(t, six())
	require.ErrorIs(t, r.SetConfig(cfg), failover.ErrInvalidConfig)
	assert.Equal(t, "b1", r.Config().Regions[3].Name)

	// a hand-built table with such a decision does not marshal either
	tab := failover.Table{Run: 1, Regions: []failover.RegionDecision{{Name: "b\xff", Phase: failover.Local}}}
	_, err = json.Marshal(tab)
	require.ErrorIs(t, err, failover.ErrInvalidTable)
}

// TestUnmarshalNullKeepsTable: a JSON null, as a whole payload or as a field,
// leaves the table in force as it is, as encoding/json does for other types;
// it wiped it, and every client region's failover traffic went home (found by
// a review).
func TestUnmarshalNullKeepsTable(t *testing.T) {
	tab, err := failover.NewTable(t0, 7, []failover.Route{{From: "a", To: "b", Share: 0.5, Mechanism: failover.MechRing}})
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal([]byte("null"), &tab))
	require.Len(t, tab.Routes, 1, "null wiped the table in force: %+v", tab)
	require.Equal(t, uint64(7), tab.Run)
	holder := struct{ Table failover.Table }{tab}
	require.NoError(t, json.Unmarshal([]byte(`{"Table": null}`), &holder))
	require.Equal(t, tab, holder.Table)
}
