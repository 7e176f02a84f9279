package main

import (
	"bytes"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestNoNominalRateRefused: -cores NaN or +Inf, a negative -work and a NaN,
// infinite or negative -target (aimd refuses these, but not inside the
// MaxOf of the default -sched) were accepted, and the real mode's nominal
// capacity, Target x Cores / Work, came out NaN, infinite or negative: the
// arrivals drawn at it stepped the clock backwards (or not at all) and never
// reached the phase's end, so runReal appended requests until memory ran
// out. parseFlags and runReal refuse them. Found by a review.
func TestNoNominalRateRefused(t *testing.T) {
	for _, args := range [][]string{
		{"-real", "-cores", "NaN"}, {"-real", "-cores", "+Inf"}, {"-real", "-cores", "-1"},
		{"-real", "-work", "-200us"}, {"-real", "-target", "NaN"}, {"-real", "-target", "-0.9"},
		{"-real", "-target", "Inf"},
	} {
		_, err := parseFlags(args, &bytes.Buffer{})
		require.Error(t, err, "%q", args)
	}
	// runReal refuses them before it draws any arrival (it hung).
	for _, cfg := range []realConfig{
		{Cores: math.NaN()}, {Cores: math.Inf(1)}, {Work: -200 * time.Microsecond}, {Target: math.NaN()}, {Target: -0.9},
	} {
		cfg.Duration, cfg.Warmup, cfg.SchedTarget = time.Second, time.Second, 20*time.Millisecond
		_, err := runReal(cfg)
		require.Error(t, err, "%+v", cfg)
	}
	_, err := parseFlags([]string{"-real", "-cores", "0", "-target", "0.8"}, &bytes.Buffer{})
	require.NoError(t, err)
}
