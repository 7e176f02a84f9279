package main

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLimitRangeWithoutPeriods: a measured run shorter than two control
// periods (-rd 150ms) has no 100 ms period wholly inside it, and the limit's
// range kept its starting bounds: the report printed "aimd concurrency
// limit: 9223372036854775807..0". It says there was no period instead.
func TestLimitRangeWithoutPeriods(t *testing.T) {
	r := &realResult{
		cfg:       realConfig{Duration: 150 * time.Millisecond, Work: 200 * time.Microsecond, Target: 0.9, Cores: 2, NoisyCost: 1},
		cpuPerReq: 210 * time.Microsecond, capacity: 8571, limitMin: math.MaxInt, // as runReal starts it
		warm: newPhaseStats(1350), run: newPhaseStats(1350), wall: 200 * time.Millisecond,
	}
	(&control{}).summarize(r)
	require.Zero(t, r.cpuSamples)
	var b strings.Builder
	r.print(&b)
	assert.NotContains(t, b.String(), "9223372036854775807")
	assert.Contains(t, b.String(), "aimd concurrency limit: no period of 100ms wholly inside the measured run")

	r.limitMin, r.limitMax, r.cpuSamples = 40, 52, 3
	b.Reset()
	r.print(&b)
	assert.Contains(t, b.String(), "aimd concurrency limit: 40..52\n")
}
