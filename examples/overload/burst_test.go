package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/internal/leak"
)

// TestMain lets the test binary serve as a burst process, as the overload
// command does (burstSpec.run starts copies of the running executable). It
// also fails the run when the tests left a goroutine behind (a controller
// loop, a burst waiter, a real-mode worker): only some tests call
// leak.Check; this covers the others.
func TestMain(m *testing.M) {
	if maybeSpin() || rtTestChild() {
		return
	}
	os.Exit(leak.Main(m))
}

func TestParseBurst(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want burstSpec
		bad  bool
	}{
		{"", burstSpec{}, false},
		{"10s:300ms:1", burstSpec{At: 10 * time.Second, For: 300 * time.Millisecond, Procs: 1}, false},
		{"0s:1s:2", burstSpec{For: time.Second, Procs: 2}, false},
		{"10s:300ms", burstSpec{}, true},
		{"10s:300ms:x", burstSpec{}, true},
		{"soon:300ms:1", burstSpec{}, true},
		{"10s:0s:1", burstSpec{}, true},
		{"10s:2m:1", burstSpec{}, true},
		{"-1s:300ms:1", burstSpec{}, true},
		{"10s:300ms:0", burstSpec{}, true},
		{"10s:300ms:65", burstSpec{}, true},
	} {
		got, err := parseBurst(tt.in)
		if tt.bad {
			assert.Error(t, err, "%q", tt.in)
			continue
		}
		require.NoError(t, err, "%q", tt.in)
		assert.Equal(t, tt.want, got, "%q", tt.in)
		if got.For > 0 {
			assert.Equal(t, tt.in, got.String(), "round trip")
		}
	}
}

// TestBurstRuns starts a real burst (two copies of the test binary spinning
// for 20 ms each, each through a launcher, so not children of the test) and
// checks from their reports that both spun and ended; a burst due after the
// run ends is never started.
func TestBurstRuns(t *testing.T) {
	report := filepath.Join(t.TempDir(), "spin")
	t.Setenv(spinReportEnv, report)
	wait := burstSpec{For: 20 * time.Millisecond, Procs: 2}.start()
	require.NoError(t, wait())
	cpus := spinReports(t, report, 2)
	for _, c := range cpus {
		// A spinner spins for 20 ms of wall time, so the CPU it gets depends
		// on what else the machine runs (under 8 busy processes on 2 cores,
		// about 9 ms): a report with CPU in it is the proof that it ran.
		assert.Positive(t, c, "CPU of a burst process")
	}

	wait = burstSpec{At: time.Hour, For: time.Second, Procs: 1}.start()
	require.NoError(t, wait(), "a burst not yet due is cancelled")
	assert.NoError(t, burstSpec{}.start()(), "no burst")
}

// spinReports reads the CPU times that n spinners append to path as they end.
// The spinners are not the test's children, so there is nothing to wait on:
// it polls the file, for at most 10 s.
func spinReports(t *testing.T, path string, n int) []time.Duration {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(path)
		if lines := strings.Fields(string(b)); len(lines) >= n || time.Now().After(deadline) {
			require.Len(t, lines, n, "spinner reports")
			out := make([]time.Duration, n)
			for i, l := range lines {
				v, err := strconv.ParseInt(l, 10, 64)
				require.NoError(t, err)
				out[i] = time.Duration(v)
			}
			return out
		}
		time.Sleep(10 * time.Millisecond)
	}
}
