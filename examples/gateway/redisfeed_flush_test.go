package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRedisCachingTierSeesFlushes: FLUSHALL, FLUSHDB and SWAPDB run on the
// shard behind the gateway's back change every key of database 0, and Redis
// announces none of it with a keyspace notification. The markers kept
// vouching for the cache, so every value cached before was served, as long
// as it stayed cached, far past the staleness bound. A read that starts
// more than the bound after the command must see the keys gone.
func TestRedisCachingTierSeesFlushes(t *testing.T) {
	const bound = 100 * time.Millisecond
	in, direct := redisCachingGateway(t, bound)
	for _, cmd := range [][]any{{"FLUSHALL"}, {"FLUSHDB"}, {"FLUSHALL", "ASYNC"}, {"SWAPDB", 0, 1}} {
		t.Run(fmt.Sprint(cmd...), func(t *testing.T) {
			require.NoError(t, direct.FlushAll(context.Background()).Err())
			requireUnseenChangeSeen(t, in, direct, bound, cmd...)
		})
	}
}

// requireUnseenChangeSeen caches key fk at "a" through the gateway, runs
// cmd on the shard directly (a command that changes fk with no keyspace
// notification), and requires a read that starts more than the staleness
// bound after it to see fk gone.
func requireUnseenChangeSeen(t *testing.T, in *instance, direct *redis.Client, bound time.Duration, cmd ...any) {
	t.Helper()
	ctx := context.Background()
	c := client(t, in, nil)
	require.NoError(t, c.Set(ctx, "fk", "a", 0).Err())
	syncFeed(t, in)
	require.Equal(t, "a", c.Get(ctx, "fk").Val()) // cached
	require.NoError(t, direct.Do(ctx, cmd...).Err())
	w := time.Now()
	for time.Since(w) <= bound+10*time.Millisecond {
		_ = c.Get(ctx, "fk") // the reads in between may be served from the cache
	}
	assert.ErrorIs(t, c.Get(ctx, "fk").Err(), redis.Nil, "a value %v removed outlived the staleness bound", cmd)
}

// TestRedisCachingTierSeesDebugReload: DEBUG RELOAD NOSAVE replaces the
// shard's data with its last dump, with no keyspace notification, no flush
// count and no new run_id, so a value the dump does not hold was served
// from the cache past the bound. Here the dump is of an empty database, and
// fk is written and cached after it.
func TestRedisCachingTierSeesDebugReload(t *testing.T) {
	const bound = 100 * time.Millisecond
	shard := startRedis(t, "--enable-debug-command", "yes", "--dir", t.TempDir())
	in := startGateway(t, Config{Backend: BackendConfig{Kind: "redis", Redis: []string{shard.addr}, Pool: 4},
		CacheCapacity: 1000, CacheStaleness: Duration(bound)})
	direct := redis.NewClient(&redis.Options{Addr: shard.addr, MaxRetries: -1})
	t.Cleanup(func() { _ = direct.Close() })
	ctx := context.Background()
	require.NoError(t, direct.FlushAll(ctx).Err())
	require.NoError(t, direct.Save(ctx).Err()) // the dump: no fk
	requireUnseenChangeSeen(t, in, direct, bound, "DEBUG", "RELOAD", "NOSAVE")
}

func TestFlushSignature(t *testing.T) {
	info := "# Commandstats\r\n" +
		"cmdstat_set:calls=3,usec=62,usec_per_call=20.67,rejected_calls=0,failed_calls=0\r\n" +
		"cmdstat_swapdb:calls=1,usec=4,usec_per_call=4.00,rejected_calls=0,failed_calls=0\r\n" +
		"cmdstat_flushall:calls=1,usec=56,usec_per_call=56.00,rejected_calls=0,failed_calls=0\r\n" +
		"cmdstat_flushallx:calls=9,usec=56,usec_per_call=56.00,rejected_calls=0,failed_calls=0\r\n"
	assert.Equal(t, "cmdstat_flushall:calls=1,usec=56,usec_per_call=56.00,rejected_calls=0,failed_calls=0\n"+
		"cmdstat_swapdb:calls=1,usec=4,usec_per_call=4.00,rejected_calls=0,failed_calls=0\n", flushSignature(info))
	assert.Empty(t, flushSignature("# Commandstats\r\n"), "none run yet")
}
