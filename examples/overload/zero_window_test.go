package main

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestZeroWindowRefused: -d and -rd of no length (or negative) were
// accepted, and a run without arrivals divided by its empty window: the
// simulation's table and the real mode's report printed goodput and the
// shedder's CPU share as NaN. The flags are refused, and the metrics read 0
// where their window is empty. Found by a review.
func TestZeroWindowRefused(t *testing.T) {
	for _, args := range [][]string{{"-d", "0"}, {"-d", "-1s"}, {"-rd", "0"}, {"-real", "-rd", "-2s"}} {
		var errOut bytes.Buffer
		_, err := parseFlags(args, &errOut)
		require.Error(t, err, "%q", args)
		assert.Contains(t, errOut.String(), "must be positive", "%q", args)
	}

	// A simulation too short for any arrival: nothing served.
	s := defaultScenario(time.Nanosecond, 1)
	reqs, names := s.arrivals()
	require.Empty(t, reqs)
	o := run(s, reqs, names, policies()[0])
	assert.False(t, math.IsNaN(o.goodput()), "goodput %v", o.goodput())
	assert.False(t, math.IsNaN(o.cpuShare()), "cpu share %v", o.cpuShare())
	assert.Zero(t, outcome{}.goodput())

	// A real mode report of a measured run of no length.
	r := &realResult{
		cfg:       realConfig{Work: 200 * time.Microsecond, Target: 0.9, Cores: 2, NoisyCost: 1, Recal: time.Second},
		cpuPerReq: 210 * time.Microsecond, cpuPerReqAfter: 220 * time.Microsecond, capacity: 8571,
		warm: newPhaseStats(1350), run: newPhaseStats(1350), wall: time.Millisecond,
	}
	var b strings.Builder
	r.print(&b)
	assert.NotContains(t, b.String(), "NaN")
	assert.Contains(t, b.String(), "goodput: 0.00%")
}
