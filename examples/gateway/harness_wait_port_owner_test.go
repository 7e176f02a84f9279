package main

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHarnessWaitPortOtherServer: wait_port PORT PID waits for process PID
// to serve PORT, not for anything that answers PING there. pick_port only
// sees the port free when it picks it: a server of another run (compare.sh,
// ab.sh and syscalls.sh run side by side on a shared machine) can take it
// before the script's own server binds. That server then fails to bind and
// exits, but the other answered PING first, wait_port returned, and the script
// measured, reset and flushed the other run's server. Here the port is
// served by this test's process; the script's "server" never listens.
func TestHarnessWaitPortOtherServer(t *testing.T) {
	bash := harnessBash(t, "redis-cli", "redis-benchmark") // harness_init checks them
	if _, err := os.Stat("/proc/net/tcp"); err != nil {
		t.Skip("wait_port tells the listening process from /proc/net/tcp (Linux)")
	}
	in := startGateway(t, Config{TargetCPU: 1, MaxLimit: 100_000})
	_, port, _ := strings.Cut(in.Addr(), ":")
	run := func(script string) (string, error) {
		_, stderr, err := runHarness(t, bash, script, 15*time.Second)
		return stderr, err
	}

	// The script's server cannot bind (the port is taken) and exits:
	// wait_port fails, with its log.
	stderr, err := run(`{ echo "Address already in use" >&2; exit 1; } 2>"$work/redis.log" & pids+=($!)
wait_port ` + port + ` $!`)
	require.Error(t, err, "wait_port accepted another process's server")
	assert.Contains(t, stderr, "has exited")
	assert.Contains(t, stderr, "Address already in use", "the process's log")

	// The process given is the one that listens (this test's): it passes.
	stderr, err = run(`wait_port ` + port + ` ` + strconv.Itoa(os.Getpid()))
	require.NoError(t, err, "%s", stderr)
}
