package main

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A caching-tier fill that shares its batch with a write of the same tenant
// and shard goes to Redis as a pipeline of plain GETs: no PTTL, so a value
// with an expiry is cached without it and served after the key expired.
func TestFillInMixedBatchKeepsTTL(t *testing.T) {
	shard := startRedis(t, "--enable-debug-command", "yes")
	ctx := context.Background()
	direct := redis.NewClient(&redis.Options{Addr: shard.addr, MaxRetries: -1})
	t.Cleanup(func() { _ = direct.Close() })
	// Expiry only on access, so the test does not race the active expiry cycle.
	require.NoError(t, direct.Do(ctx, "DEBUG", "SET-ACTIVE-EXPIRE", "0").Err())
	in := startGateway(t, Config{Backend: BackendConfig{Kind: "redis", Redis: []string{shard.addr}, Pool: 4},
		CacheCapacity: 1000, CacheStaleness: Duration(time.Second),
		BatchPolicy: "linger", Linger: Duration(50 * time.Millisecond)})
	g := in.gw
	ten := g.tenants["default"]

	require.NoError(t, direct.Set(ctx, "tk", "v", 700*time.Millisecond).Err())
	syncFeed(t, in)
	rb, _ := asRedis(g.backend)
	require.True(t, rb.volatile[0].isSet())

	// A GET (cache miss: a fill) and a SET of another key, in one batch.
	var wg sync.WaitGroup
	wg.Go(func() { g.one(ctx, ten, op{kind: opGet, key: "tk"}) })
	wg.Go(func() { g.one(ctx, ten, op{kind: opSet, key: "other", value: []byte("x")}) })
	wg.Wait()

	v, ok := g.cache.caches[0].Load().TryGet("tk")
	require.True(t, ok)
	require.NotZero(t, v.expireAt, "the fill stored a volatile key without its expiry")
}

// End to end: the cached value outlives the key's TTL.
func TestFillInMixedBatchExpires(t *testing.T) {
	shard := startRedis(t, "--enable-debug-command", "yes")
	ctx := context.Background()
	direct := redis.NewClient(&redis.Options{Addr: shard.addr, MaxRetries: -1})
	t.Cleanup(func() { _ = direct.Close() })
	require.NoError(t, direct.Do(ctx, "DEBUG", "SET-ACTIVE-EXPIRE", "0").Err())
	in := startGateway(t, Config{Backend: BackendConfig{Kind: "redis", Redis: []string{shard.addr}, Pool: 4},
		CacheCapacity: 1000, CacheStaleness: Duration(time.Second),
		BatchPolicy: "linger", Linger: Duration(50 * time.Millisecond)})
	c := client(t, in, nil)
	require.NoError(t, c.Set(ctx, "tk", "v", 300*time.Millisecond).Err())
	expires := time.Now().Add(300 * time.Millisecond)
	syncFeed(t, in)
	// A client pipelines GET tk and SET other: both in one batch.
	_, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.Get(ctx, "tk")
		p.Set(ctx, "other", "x", 0)
		return nil
	})
	require.NoError(t, err)
	for time.Now().Before(expires.Add(100 * time.Millisecond)) {
		syncFeed(t, in) // checkpoints keep flowing
	}
	got, err := c.Get(ctx, "tk").Result()
	require.ErrorIs(t, err, redis.Nil, "GET through the gateway answered %q after the key's TTL ran out", got)
}

// A replica that answers an error to every read (here MASTERDOWN: its link to
// its master is down and it must not serve stale data; LOADING after a
// resync is the same) must not fail the read batches routed to it, nor mark
// the shard down, while the primary answers: they are read on the primary.
func TestReplicaErrorFallsBackToPrimary(t *testing.T) {
	eachClient(t, func(t *testing.T, kind string) {
		primary := startRedis(t)
		// A replica of a master that is not there, not serving stale data.
		ln := startRedis(t) // a free port: stop it, so the replica's master is gone
		host, port, _ := strings.Cut(ln.addr, ":")
		ln.stop()
		replica := startRedis(t)
		rc := redis.NewClient(&redis.Options{Addr: replica.addr, MaxRetries: -1})
		defer rc.Close()
		require.NoError(t, rc.ConfigSet(context.Background(), "replica-serve-stale-data", "no").Err())
		require.NoError(t, rc.Do(context.Background(), "REPLICAOF", host, port).Err())
		require.Error(t, rc.Get(context.Background(), "rk").Err()) // MASTERDOWN
		in := startGateway(t, Config{Backend: BackendConfig{Kind: "redis", Redis: []string{primary.addr},
			Replicas: [][]string{{replica.addr}}, Pool: 2, Client: kind}})
		ctx := context.Background()
		c := client(t, in, nil)
		require.NoError(t, c.Set(ctx, "rk", "v", 0).Err())
		v, err := c.Get(ctx, "rk").Result()
		require.NoError(t, err, "the primary holds the key and answers")
		require.Equal(t, "v", v)
		assert.False(t, in.gw.health[0].down.Load(), "the shard is not marked down")
	})
}

// TestQuotaChargedAfterWatch: a tenant over its quota of backend calls gets
// THROTTLED on GET, and also on WATCH and the reads after it, which on Redis
// shards are backend round trips too (they passed uncharged and unchecked).
func TestQuotaChargedAfterWatch(t *testing.T) {
	shard := startRedis(t)
	in := startGateway(t, Config{Backend: BackendConfig{Kind: "redis", Redis: []string{shard.addr}, Pool: 2},
		Tenants: []TenantConfig{{Name: "default", QuotaRate: 0.001, QuotaBurst: 1}}})
	ctx := context.Background()
	c := client(t, in, nil)
	require.ErrorIs(t, c.Get(ctx, "k").Err(), redis.Nil) // the one allowed backend call
	require.ErrorContains(t, c.Get(ctx, "k").Err(), "THROTTLED")
	before := in.gw.n.backendCalls.Load()
	served := 0
	err := c.Watch(ctx, func(tx *redis.Tx) error {
		for range 50 {
			if err := tx.Get(ctx, "k").Err(); err == redis.Nil {
				served++
			}
		}
		return nil
	}, "k")
	// WATCH reads the keys' states on Redis: a backend call, throttled too.
	require.ErrorContains(t, err, "THROTTLED")
	t.Logf("backend_calls counter moved by %d; commandstats on the shard: %s",
		in.gw.n.backendCalls.Load()-before, shard.info(t, "commandstats", "cmdstat_get"))
	require.Zero(t, served, "GETs after WATCH served to a tenant over its quota")
	assert.Zero(t, in.gw.n.backendCalls.Load()-before, "nothing reached the backend")
}
