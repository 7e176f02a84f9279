package main

import (
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHarnessBackendCallsDeadShard: backend_calls sums the shards' command
// counts for compare.sh's and ab.sh's backend/req column. Its loop over the
// shards fed a pipeline whose status was the last redis-cli's, so a shard
// that did not answer was noticed when it came last and left out of the sum
// (the row showing fewer backend commands) when it came first: the scripts
// call it in a command substitution, where set -e is off. Either way it
// must fail, under the scripts' set -euo pipefail.
func TestHarnessBackendCallsDeadShard(t *testing.T) {
	bash := harnessBash(t, "redis-cli", "redis-benchmark", "redis-server")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	_, closed, _ := strings.Cut(ln.Addr().String(), ":")
	require.NoError(t, ln.Close())

	stdout, stderr, err := runHarness(t, bash, `set -euo pipefail # as the scripts run
pick_port a; start_redis "$a"
redis-cli -p "$a" set k v >/dev/null
echo "live $(backend_calls "$a")"
calls=$(backend_calls `+closed+` "$a")
echo "dead $calls"`, 30*time.Second)
	require.Error(t, err, "a shard that did not answer was left out: %s", stdout)
	assert.NotContains(t, stdout, "dead")
	assert.Contains(t, stdout, "live 1\n", "%s", stderr)
	assert.Contains(t, stderr, "shard "+closed+" did not answer")
}

// TestHarnessBackendCallsSilentShard: backend_calls ran redis-cli INFO with
// no timeout, so a shard that accepts and never answers (wedged, stopped
// with Ctrl-Z) held the row, and the script, for ever. It must fail, naming
// the shard, within its bound.
func TestHarnessBackendCallsSilentShard(t *testing.T) {
	bash := harnessBash(t, "redis-cli", "redis-benchmark", "timeout")
	silent := silentServer(t)
	start := time.Now()
	stdout, stderr, err := runHarness(t, bash, `set -euo pipefail # as the scripts run
calls=$(backend_calls `+silent+`)
echo "calls $calls"`, 30*time.Second)
	require.Error(t, err, "a shard that never answered: %s", stdout)
	assert.NotContains(t, stdout, "calls")
	assert.Contains(t, stderr, "shard "+silent+" did not answer")
	assert.Less(t, time.Since(start), 20*time.Second)
}
