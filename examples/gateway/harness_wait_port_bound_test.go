package main

import (
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHarnessWaitPortSilentServer: wait_port waits up to 20 s, its comment
// says; but each poll ran redis-cli ping, which has no timeout, so a server
// that accepts connections and never answers (wedged, or stopped with
// Ctrl-Z in another terminal) held it, and the script, for ever. Here this
// test's process is that server: wait_port must give up, saying so, within
// its limit (WAIT_PORT_SECS, 3 s here rather than the scripts' 20) and a
// last PING's second.
func TestHarnessWaitPortSilentServer(t *testing.T) {
	bash := harnessBash(t, "redis-cli", "redis-benchmark", "timeout") // harness_init checks the first two
	port := silentServer(t)

	start := time.Now()
	_, stderr, err := runHarness(t, bash, `WAIT_PORT_SECS=3 wait_port `+port+` `+strconv.Itoa(os.Getpid()), 30*time.Second)
	require.Error(t, err, "wait_port accepted a server that never answered")
	assert.Contains(t, stderr, "did not come up")
	took := time.Since(start)
	assert.GreaterOrEqual(t, took, 2*time.Second, "gave up before its limit")
	assert.Less(t, took, 15*time.Second, "its 3 s and a last PING's second")
}
