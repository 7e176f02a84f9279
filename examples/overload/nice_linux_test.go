package main

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadThreads reads every thread's scheduling back: all at the process's
// niceness, in the normal policy.
func TestReadThreads(t *testing.T) {
	cur, err := niceness()
	require.NoError(t, err)
	threads, err := readThreads()
	require.NoError(t, err)
	require.NotEmpty(t, threads)
	for tid, v := range threads {
		assert.Equal(t, threadSched{nice: cur, policy: schedOther}, v, "thread %d", tid)
	}
}

// rtTestEnv makes the test binary a child that enters the real-time policy
// and leaves it, each checked from /proc by setPolicy (see TestMain).
const rtTestEnv = "TIERKIT_OVERLOAD_TEST_RT"

func rtTestChild() bool {
	if os.Getenv(rtTestEnv) == "" {
		return false
	}
	if err := setRealtime(1); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if err := setPolicy(schedOther, 0); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	return true
}

// TestRealtimeRoundTrip runs a child that moves all its threads to the
// real-time policy and back (root only: entering it needs the privilege).
func TestRealtimeRoundTrip(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("entering a real-time policy needs root")
	}
	exe, err := os.Executable()
	require.NoError(t, err)
	c := exec.Command(exe, "-test.run=^$")
	c.Env = append(os.Environ(), rtTestEnv+"=1")
	out, err := c.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Error(t, setRealtime(0), "priority 0 is not real-time")
	assert.Error(t, setRealtime(100))
}

// TestBurstProcessRenices runs a burst process (a copy of the test binary) told
// to run at a niceness above this one's, as -nice arranges for the injected
// burst. It renices all its threads and checks them from /proc before it
// spins, exiting 2 if any is wrong; raising the niceness needs no privilege.
func TestBurstProcessRenices(t *testing.T) {
	cur, err := niceness()
	require.NoError(t, err)
	if cur > 16 {
		t.Skipf("already at niceness %d", cur)
	}
	exe, err := os.Executable()
	require.NoError(t, err)
	c := exec.Command(exe)
	c.Env = append(os.Environ(), spinEnv+"=1ms", spinNiceEnv+"="+strconv.Itoa(cur+3))
	out, err := c.CombinedOutput()
	require.NoError(t, err, "%s", out)

	c = exec.Command(exe)
	c.Env = append(os.Environ(), spinEnv+"=1ms", spinNiceEnv+"=99")
	out, err = c.CombinedOutput()
	assert.Error(t, err, "an impossible niceness is an error: %s", out)
}

func TestParseAutogroup(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int
		bad  bool
	}{
		{"/autogroup-86 nice 0\n", 0, false},
		{"/autogroup-1 nice -20", -20, false},
		{"/autogroup-7 nice 19", 19, false},
		{"", 0, true},
		{"/autogroup-7 prio 19", 0, true},
		{"/autogroup-7 nice x", 0, true},
	} {
		got, err := parseAutogroup(tt.in)
		if tt.bad {
			assert.Error(t, err, "%q", tt.in)
			continue
		}
		require.NoError(t, err, "%q", tt.in)
		assert.Equal(t, tt.want, got, "%q", tt.in)
	}
}
