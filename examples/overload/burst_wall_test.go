package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/internal/leak"
)

// TestBurstPastTheRunNotMeasured: a burst may outlast the measured run
// (-burst 200ms:2s:1 in a 300 ms run: check refuses only one due after the
// run's end). The run waited for the burst to end before reading its
// process CPU and wall time and before stopping the CPU profile, so the
// "process CPU over the measured run" was divided by the wait as well, and
// the profile covered a near-idle second of control-loop ticks (aimd and
// shed) that raised the shed+aimd share. The measured run ends with its last
// request; the burst is waited for afterwards.
func TestBurstPastTheRunNotMeasured(t *testing.T) {
	leak.Check(t)
	const burstAt, burstFor = 50 * time.Millisecond, 2500 * time.Millisecond
	r, err := runReal(realConfig{Duration: 300 * time.Millisecond, Warmup: 300 * time.Millisecond, Work: 2 * time.Millisecond,
		Burst: burstSpec{At: burstAt, For: burstFor, Procs: 1}})
	require.NoError(t, err)
	// The arrivals end at 300 ms and every request within about its 100 ms
	// deadline after; the burst ends 2.55 s in. A run that waited for the
	// burst would last at least that long; one that did not has a wall time
	// near 400 ms, with room for a machine busy with other work.
	assert.Less(t, r.wall, burstAt+burstFor, "the measured run's wall time")
	assert.Greater(t, r.wall, 300*time.Millisecond, "the measured run lasts at least its arrivals")
}
