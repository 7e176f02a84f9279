package main

import (
	"bytes"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTinyNominalCapacityRefused: a positive but tiny nominal capacity,
// Target x Cores / Work (-cores 1e-15, -target 1e-20), passed every check,
// and realScenario's unit of service, GOMAXPROCS / capacity seconds, went
// past the longest time.Duration and converted to a negative one: the
// arrival rates came out negative, the arrivals stepped the clock backwards
// and runReal appended requests until memory ran out. parseFlags and check
// refuse such a capacity. Found by a review.
func TestTinyNominalCapacityRefused(t *testing.T) {
	for _, args := range [][]string{
		{"-real", "-cores", "1e-15"}, {"-real", "-target", "1e-20"},
	} {
		var errOut bytes.Buffer
		_, err := parseFlags(args, &errOut)
		require.Error(t, err, "%q", args)
		assert.Contains(t, errOut.String(), "real mode: ", "%q", args)
	}
	for _, cfg := range []realConfig{{Cores: 1e-15}, {Target: 1e-20}} {
		cfg.Duration = 20 * time.Second
		require.Error(t, cfg.check(), "%+v", cfg)
	}
	_, err := parseFlags([]string{"-real", "-cores", "0.01", "-target", "0.5"}, &bytes.Buffer{})
	require.NoError(t, err, "a small budget with a usable capacity")
}

// TestArrivalsEndAtATinyRate: the arrivals converted each arrival time to a
// time.Duration before comparing it with the phase's end, so a gap past the
// longest Duration (a rate of one request in centuries) converted to a
// negative time, never reached the end, and the stream grew until memory ran
// out. A rate that low draws no arrival in the phase. Found by a review.
func TestArrivalsEndAtATinyRate(t *testing.T) {
	s := defaultScenario(time.Second, 1)
	s.Slots, s.Unit = 1, time.Duration(math.MaxInt64) // one unit of cost in 292 years
	s.NormalPct, s.NoisyPct = 1e-6, 1e-6
	reqs, names := s.arrivals()
	assert.Empty(t, reqs)
	assert.Len(t, names, s.Normal+s.Noisy)
}
