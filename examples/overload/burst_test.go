package main

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMain lets the test binary serve as a burst process, as the overload
// command does (burstSpec.run starts copies of the running executable).
func TestMain(m *testing.M) {
	if maybeSpin() || rtTestChild() {
		return
	}
	os.Exit(m.Run())
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
// for 20 ms each) and checks that they used CPU and ended; a burst due after
// the run ends is never started.
func TestBurstRuns(t *testing.T) {
	before, err := childrenCPU()
	require.NoError(t, err)
	wait := burstSpec{For: 20 * time.Millisecond, Procs: 2}.start()
	require.NoError(t, wait())
	after, err := childrenCPU()
	require.NoError(t, err)
	assert.GreaterOrEqual(t, after-before, 20*time.Millisecond, "CPU of the burst's processes")

	wait = burstSpec{At: time.Hour, For: time.Second, Procs: 1}.start()
	require.NoError(t, wait(), "a burst not yet due is cancelled")
	assert.NoError(t, burstSpec{}.start()(), "no burst")
}
