package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRedisCLI drives the gateway with redis-cli (scripts/setup.sh installs it),
// which sends COMMAND DOCS, HELLO and friends before the user's command.
func TestRedisCLI(t *testing.T) {
	cli, err := exec.LookPath("redis-cli")
	require.NoError(t, err, "redis-cli is needed: run scripts/setup.sh")
	in := startGateway(t, Config{})
	host, port, _ := strings.Cut(in.Addr(), ":")
	run := func(args ...string) string {
		out, err := exec.Command(cli, append([]string{"-h", host, "-p", port}, args...)...).CombinedOutput()
		require.NoError(t, err, "%s", out)
		return strings.TrimSpace(string(out))
	}
	assert.Equal(t, "PONG", run("ping"))
	assert.Equal(t, "OK", run("set", "cli", "v"))
	assert.Equal(t, "v", run("get", "cli"))
	assert.Equal(t, "5", run("incrby", "n", "5"))
	assert.Contains(t, run("info", "stats"), "backend_calls:")
	assert.Contains(t, run("nosuchcommand"), "unknown command")
	assert.Equal(t, "v", run("-3", "get", "cli"), "RESP3 via HELLO 3")
}

// TestRedisBenchmarkShortRun runs a short redis-benchmark (SET, GET, MGET,
// pipelined) against the gateway: every request must succeed.
func TestRedisBenchmarkShortRun(t *testing.T) {
	bench, err := exec.LookPath("redis-benchmark")
	require.NoError(t, err, "redis-benchmark is needed: run scripts/setup.sh")
	// Admission would rightly shed on a saturated CI machine; this test is
	// about protocol compatibility, so it does not throttle.
	in := startGateway(t, Config{TargetCPU: 1, MaxLimit: 100_000})
	host, port, _ := strings.Cut(in.Addr(), ":")
	for _, args := range [][]string{
		{"-t", "set,get", "-P", "1"},
		{"-t", "set,get", "-P", "16"},
		{"-P", "4", "mget", "key:__rand_int__", "key:__rand_int__", "key:__rand_int__"},
	} {
		out, err := exec.Command(bench, append([]string{"-h", host, "-p", port, "-c", "20", "-n", "2000",
			"-r", "1000", "-d", "64", "--csv"}, args...)...).CombinedOutput()
		require.NoError(t, err, "%s", out)
		assert.NotContains(t, string(out), "Error", "%s", out)
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		require.GreaterOrEqual(t, len(lines), 2, "%s", out)
		t.Logf("%v: %s", args, strings.Join(lines[1:], " | "))
	}
}
