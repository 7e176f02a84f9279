package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNegativeRealSettingsRefused: the real mode's durations but -rd and
// -work, and -profilehz, were taken negative without a word: -warmup -5s
// drew no warm-up arrivals, so the capacity was the work alone's and not a
// calibration, which the report did not say; -backend -10ms slept for no
// time, dropping the modeled backend; -sched -20ms read as "CPU only";
// -profilehz -5 sampled at 100 Hz while the report said "asked at -5 Hz".
// They are refused. Found by a review.
func TestNegativeRealSettingsRefused(t *testing.T) {
	for _, args := range [][]string{
		{"-real", "-warmup", "-5s"}, {"-real", "-recal", "-1s"}, {"-real", "-backend", "-10ms"},
		{"-real", "-qd", "-1ms"}, {"-real", "-sched", "-20ms"}, {"-real", "-profilehz", "-5"},
	} {
		var errOut bytes.Buffer
		_, err := parseFlags(args, &errOut)
		require.Error(t, err, "%q", args)
		assert.Contains(t, errOut.String(), "is negative", "%q", args)
	}
	_, err := parseFlags([]string{"-real", "-sched", "0", "-recal", "0", "-profilehz", "1000", "-cpuprofile", "cpu.pprof"}, &bytes.Buffer{})
	require.NoError(t, err)
}
