package main

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMinLeadWithoutCrossing: on a day where no region's home demand crosses
// 90% (seed 5, for one), there is no lead to measure. The target does not
// apply; it read "MISS 0 runs" for every router, tierkit included.
func TestMinLeadWithoutCrossing(t *testing.T) {
	none := failResult{ctl: "tierkit", MinLead: 0, Crossings: 0, RingA1: math.NaN()}
	spilled := failResult{ctl: "other", MinLead: 3, Crossings: 1, RingA1: math.NaN()}
	_, rows := failoverTargets([]failResult{none, spilled}, knobResult{RingA1: 70, Knob: 60, Realized: 60})
	var lead *targetRow
	for i := range rows {
		if rows[i].target == "spill >= 2 runs before a 90% crossing (min lead)" {
			lead = &rows[i]
		}
	}
	require.NotNil(t, lead)
	assert.True(t, lead.cells[0].na, "no crossing: the target does not apply")
	assert.Equal(t, "no crossing", lead.cells[0].text)
	assert.False(t, lead.cells[1].na)
	assert.True(t, lead.cells[1].ok, "a crossing with a lead of 3 runs meets it")

	// The same through the simulation: seed 5 has no crossing.
	fp := defaultFail(24 * 60)
	r := runFailover(fp, 5, failRouters()[0])
	require.Zero(t, r.Crossings, "seed 5's day has no 90% crossing")
	_, rows = failoverTargets([]failResult{r}, runKnob(fp, 5, 60))
	for _, row := range rows {
		if row.target == lead.target {
			assert.True(t, row.cells[0].na)
		}
	}
}

// TestRingAndKnobNotMeasured: when no run had an uncapped ring spill from a2
// (knobResult.RingA1 NaN) or no run measured the knob, tierkit's cells read
// "MISS NaN%" and "MISS 0.0%": figures that were never measured, counted as
// misses. Like a day with no crossing, the target does not apply.
func TestRingAndKnobNotMeasured(t *testing.T) {
	r := failResult{ctl: "tierkit", RingA1: math.NaN()}
	_, rows := failoverTargets([]failResult{r}, knobResult{Knob: 60, RingA1: math.NaN()})
	cells := map[string]cell{}
	for _, row := range rows {
		cells[row.target] = row.cells[0]
	}
	ring := cells["ring a2->a1 share within 2 points of 70%"]
	assert.True(t, ring.na, "ring: %q", ring.text)
	assert.NotContains(t, ring.text, "NaN")
	knob := cells["knob (60%) realized within 1 point"]
	assert.True(t, knob.na, "knob: %q", knob.text)
}
