package main

import (
	"context"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// TestRedisCachingTierShardRestart: a shard that restarts comes back with its
// own configuration, keyspace notifications off. The feed resubscribes and
// its markers keep vouching for the cache, so the feed must turn the
// notifications on again: a write made on the shard behind the gateway's back
// after the restart still reaches the cache.
func TestRedisCachingTierShardRestart(t *testing.T) {
	shard := startRedis(t)
	in := startGateway(t, Config{Backend: BackendConfig{Kind: "redis", Redis: []string{shard.addr}, Pool: 4},
		CacheCapacity: 1000, CacheStaleness: Duration(time.Minute)}) // only the feed invalidates
	direct := redis.NewClient(&redis.Options{Addr: shard.addr, MaxRetries: -1})
	t.Cleanup(func() { _ = direct.Close() })
	c := client(t, in, nil)
	ctx := context.Background()

	bin, err := exec.LookPath("redis-server")
	require.NoError(t, err)
	port, err := strconv.Atoi(strings.TrimPrefix(shard.addr, "127.0.0.1:"))
	require.NoError(t, err)
	resets := in.gw.cache.resets.Load()
	shard.stop()
	shard.start(t, bin, port) // default configuration: no keyspace notifications
	eventually(t, "the feed did not resubscribe", func() bool { return in.gw.cache.resets.Load() > resets })

	require.ErrorIs(t, c.Get(ctx, "rk").Err(), redis.Nil) // cached as absent
	require.NoError(t, direct.Set(ctx, "rk", "v", 0).Err())
	syncFeed(t, in) // every change before it has reached the cache
	require.Equal(t, "v", c.Get(ctx, "rk").Val(), "a write behind the gateway's back after the restart reached the cache")
}
