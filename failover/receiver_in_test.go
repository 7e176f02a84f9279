package failover_test

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/failover"
)

// TestHugeRatesReceivedStaysFinite: rates are accepted up to the float64 maximum, and
// a receiver's room is capped there. Two senders filling that room each add less
// than it, but the sum of what they sent rounded past the maximum: the receiver's In
// read +Inf and the table no longer marshalled ("json: unsupported value: +Inf").
func TestHugeRatesReceivedStaysFinite(t *testing.T) {
	cfg := failover.Config{Tier: "t", ReceiverMax: 2, Regions: []failover.Region{
		{Name: "s1", Knobs: failover.Knobs{Global: 100}},
		{Name: "s2", Knobs: failover.Knobs{Global: 100}},
		{Name: "z"},
	}}
	r := mustNew(t, cfg)
	tab, err := r.Step(t0, []failover.Load{ // s1 and s2 down, z idle: room 2e308, capped
		{Region: "s1", Demand: 7.362999863280645e+307},
		{Region: "s2", Demand: 1.4821446504905168e+308},
		{Region: "z", Capacity: 1e308},
	})
	require.NoError(t, err)
	require.Len(t, tab.Routes, 2)
	z := decision(tab, "z")
	assert.InDelta(t, math.MaxFloat64/1e308, z.In, 1e-9, "%+v", z)
	_, err = json.Marshal(tab)
	require.NoError(t, err)
}
