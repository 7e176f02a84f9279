package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestRegionSummaryCountsEveryHotTick: the figure "while its home signal was
// >= 0.9, eu sent traffic to us in N of M ticks" (and the check on it)
// counted only the hot ticks after the spill started: a region hot for two
// ticks before it spilled read "1 of 1", and one hot without ever spilling
// "0 of 0".
func TestRegionSummaryCountsEveryHotTick(t *testing.T) {
	tick := func(phase string, home, out float64) regionTick {
		return regionTick{phase: phase, home: home, out: out, want: out, backupPhase: "local"}
	}
	late := &regionRecorder{ticks: []regionTick{
		tick("local", 0.5, 0), tick("local", 0.92, 0), tick("local", 0.95, 0), tick("spilling", 0.95, 0.2), tick("local", 0.5, 0),
	}}
	sm := late.summarize(4)
	assert.Equal(t, 3, sm.hotTicks, "ticks with home >= 0.9")
	assert.Equal(t, 1, sm.hotSpilling, "of them, ticks with the spill on")

	never := &regionRecorder{ticks: []regionTick{tick("local", 0.5, 0), tick("local", 0.95, 0), tick("local", 0.96, 0)}}
	sm = never.summarize(3)
	assert.Equal(t, 2, sm.hotTicks)
	assert.Equal(t, 0, sm.hotSpilling)
}
