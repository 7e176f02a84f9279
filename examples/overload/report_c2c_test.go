package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestRoundTripLabelFollowsRecal: runReal reads the second core-to-core round
// trip after -recal's calibration when there is one, seconds after the
// measured run; the report said "after the measured run" either way.
func TestRoundTripLabelFollowsRecal(t *testing.T) {
	for _, recal := range []time.Duration{0, 5 * time.Second} {
		cfg := realConfig{Duration: time.Second, Warmup: time.Second, Work: 200 * time.Microsecond,
			Target: 0.9, Cores: 1, NoisyCost: 1, Recal: recal}
		r := &realResult{cfg: cfg, warm: newPhaseStats(1350), run: newPhaseStats(1350),
			cpuPerReq: 210 * time.Microsecond, capacity: 4000, nominal: 4500,
			c2c: [2]time.Duration{200 * time.Nanosecond, 900 * time.Nanosecond}}
		if recal > 0 {
			r.cpuPerReqAfter = 215 * time.Microsecond
		}
		var b stringsBuilder
		r.print(&b)
		if recal > 0 {
			assert.Contains(t, b.String(), "900ns after the measured run and -recal's calibration")
		} else {
			assert.Contains(t, b.String(), "900ns after the measured run\n")
		}
	}
}
