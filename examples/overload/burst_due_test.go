package main

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBurstAfterTheRunRefused: a -burst due at or after the end of the
// measured run (-burst 10s:300ms:1 with -rd 5s) was accepted; the run ended
// first, stopped the burst's timer and started no process, and the report
// still printed "injected outside burst: ... 10s into the measured run".
// Found by a review.
func TestBurstAfterTheRunRefused(t *testing.T) {
	for _, args := range [][]string{
		{"-real", "-rd", "5s", "-burst", "10s:300ms:1"},
		{"-real", "-rd", "5s", "-burst", "5s:300ms:1"},
	} {
		var errOut bytes.Buffer
		_, err := parseFlags(args, &errOut)
		require.Error(t, err, "%q", args)
		assert.Contains(t, errOut.String(), "never runs", "%q", args)
	}
	cfg := realConfig{Duration: 5 * time.Second, Burst: burstSpec{At: 10 * time.Second, For: 300 * time.Millisecond, Procs: 1}}
	assert.Error(t, cfg.check())

	o, err := parseFlags([]string{"-real", "-rd", "5s", "-burst", "4s:300ms:2"}, &bytes.Buffer{})
	require.NoError(t, err)
	assert.Equal(t, burstSpec{At: 4 * time.Second, For: 300 * time.Millisecond, Procs: 2}, o.real.Burst)
	require.NoError(t, o.real.check())

	_, err = parseFlags([]string{"-real", "-burst", "1s:0s:1"}, &bytes.Buffer{})
	assert.Error(t, err, "a malformed burst is refused with the other flags")
}
