package main

import (
	"bytes"
	"context"
	"log/slog"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// flushLine is the start of the marker check's log line for a FLUSHALL,
// FLUSHDB, SWAPDB, CONFIG SET or CONFIG RESETSTAT.
const flushLine = "caching tier: FLUSHALL"

// restartShard stops r's server and starts a fresh one on the same port
// (no persistence: empty, its command counts from zero, a new run_id), with
// keyspace notifications on if notify, as its configuration file may say.
func restartShard(t *testing.T, r *redisServer, notify bool) {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	require.NoError(t, err)
	port, err := strconv.Atoi(strings.TrimPrefix(r.addr, "127.0.0.1:"))
	require.NoError(t, err)
	r.stop()
	var extra []string
	if notify {
		extra = []string{"--notify-keyspace-events", "KEA"}
	}
	r.start(t, bin, port, extra...)
}

// markerRun is a marker loop's state on a shard whose checks ran a while:
// the feed subscribed (psubscribed) and a few checks followed.
type markerRun struct {
	ct   *cacheTier
	b    *redisBackend
	m    markerState
	logs bytes.Buffer
}

func startMarkerRun(t *testing.T, r *redisServer) *markerRun {
	t.Helper()
	ct, err := newCacheTier(1, 100, time.Minute)
	require.NoError(t, err)
	t.Cleanup(ct.Close)
	run := &markerRun{ct: ct}
	ct.log = slog.New(slog.NewJSONHandler(&run.logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	run.b = newRedisBackend([]string{r.addr}, nil, 1, "go-redis", redisAuth{})
	t.Cleanup(func() { _ = run.b.Close() })
	ctx := context.Background()
	require.NoError(t, ensureNotifications(ctx, run.b.shards[0], ct.log))
	ct.psubscribed(ctx, run.b, 0, &run.m)
	for range 5 {
		ct.mark(ctx, run.b, 0, run.b.shards[0], "marker", &run.m)
	}
	require.Equal(t, uint64(1), ct.resets.Load(), "only the subscription resets")
	run.logs.Reset()
	return run
}

// mark runs one marker check on a client of its own (the backend's pool
// holds connections to the server that stopped).
func (run *markerRun) mark(t *testing.T, addr string) {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr})
	defer c.Close()
	run.ct.mark(context.Background(), run.b, 0, c, "marker", &run.m)
}

// TestMarkAfterShardRestart: a shard that restarts starts its command counts
// from zero, so its INFO count is lower at the first marker check after the
// restart than at the last one before. The check took that for a CONFIG
// RESETSTAT and logged that a FLUSHALL, FLUSHDB, SWAPDB, CONFIG SET or
// CONFIG RESETSTAT ran, a line too many for one outage, already logged by
// the feed (TestRedisCachedPipelineShardDown failed on it about one run in
// six, when a check ran between the feed's return and the test's count). The
// check now reads the shard's run_id: the counts of another run are no
// baseline. A restart the check sees before the feed does still empties the
// cache (its notifications meanwhile went to nobody), without that line: the
// feed logs the loss and the return.
func TestMarkAfterShardRestart(t *testing.T) {
	t.Run("the feed resubscribed first", func(t *testing.T) {
		r := startRedis(t)
		run := startMarkerRun(t, r)
		run.m.feedUp.Store(false) // the feed saw its connection fail
		restartShard(t, r, false)

		// The feed's next subscription sets the flags and resets.
		b := newRedisBackend([]string{r.addr}, nil, 1, "go-redis", redisAuth{})
		defer b.Close()
		ctx := context.Background()
		require.NoError(t, ensureNotifications(ctx, b.shards[0], run.ct.log))
		run.ct.psubscribed(ctx, b, 0, &run.m)
		require.Equal(t, uint64(2), run.ct.resets.Load())
		run.logs.Reset()

		run.mark(t, r.addr)
		require.NotContains(t, run.logs.String(), flushLine, "a restart logged as a flush")
		require.Equal(t, uint64(2), run.ct.resets.Load(), "the subscription on the new server already reset")

		// A RESETSTAT on the new server is still seen.
		c := redis.NewClient(&redis.Options{Addr: r.addr})
		defer c.Close()
		require.NoError(t, c.ConfigResetStat(ctx).Err())
		run.mark(t, r.addr)
		require.Contains(t, run.logs.String(), flushLine)
		require.Equal(t, uint64(3), run.ct.resets.Load())
	})
	t.Run("the check saw the restart first", func(t *testing.T) {
		r := startRedis(t)
		run := startMarkerRun(t, r)
		run.ct.caches[0].Load().Set("rk", cached{value: []byte("a"), found: true})
		restartShard(t, r, true) // flags set by its configuration: the check goes on

		run.mark(t, r.addr) // feedUp: the feed has not noticed yet
		require.False(t, run.ct.contains(0, "rk"), "a value cached before the restart is still vouched for")
		require.Equal(t, uint64(2), run.ct.resets.Load())
		require.NotContains(t, run.logs.String(), flushLine, "a restart logged as a flush")
		require.True(t, run.b.volatile[0].isSet(), "volatile until the feed reads INFO keyspace")

		run.mark(t, r.addr)
		require.Equal(t, uint64(2), run.ct.resets.Load(), "a check with nothing run since resets nothing")
	})
}
