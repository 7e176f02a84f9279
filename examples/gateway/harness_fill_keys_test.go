package main

import (
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHarnessFillKeys: compare.sh's GET and MGET rows read keys the SET
// rows wrote, but twemproxy (ketama, fnv1a_64) and the gateway (its own
// hash ring) place a key on different shards about half the time, so each
// proxy found a different share of the keyspace (a proxy set through last
// more of it), and answered a different share of its GETs null; and the
// first proxy's SET row created the keys the later ones only overwrote.
// fill_keys writes every key redis-benchmark's -r COUNT can name, with its
// 64-byte value, on every shard given, before any proxy runs: each proxy
// then reads a full keyspace wherever it places a key. It leaves the hot
// key (the literal key:__rand_int__) unset, and fails on a shard that does
// not take the keys.
func TestHarnessFillKeys(t *testing.T) {
	bash := harnessBash(t, "redis-cli", "redis-benchmark", "redis-server", "timeout")
	stdout, stderr, err := runHarness(t, bash, `set -euo pipefail # as the scripts run
pick_port a; pick_port b; start_redis "$a" "$b"
fill_keys 1000 "$a" "$b"
for p in "$a" "$b"; do
	echo "size $(redis-cli -p "$p" dbsize)"
	echo "first $(redis-cli -p "$p" get key:000000000000)"
	echo "last $(redis-cli -p "$p" strlen key:000000000999)"
	echo "past $(redis-cli -p "$p" exists key:000000001000)"
	echo "hot $(redis-cli -p "$p" exists key:__rand_int__)"
done`, 60*time.Second)
	require.NoError(t, err, "%s", stderr)
	value := strings.Repeat("x", 64) // redis-benchmark -d 64's value
	for _, want := range []string{"size 1000", "first " + value, "last 64", "past 0", "hot 0"} {
		assert.Equal(t, 2, strings.Count(stdout, want+"\n"), "%q on each shard: %s", want, stdout)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	_, closed, _ := strings.Cut(ln.Addr().String(), ":")
	require.NoError(t, ln.Close())
	stdout, stderr, err = runHarness(t, bash, `set -euo pipefail
fill_keys 10 `+closed+`
echo filled`, 30*time.Second)
	require.Error(t, err, "a shard that did not answer: %s", stdout)
	assert.NotContains(t, stdout, "filled")
	assert.Contains(t, stderr, "shard "+closed)
}
