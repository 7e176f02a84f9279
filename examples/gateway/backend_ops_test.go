package main

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// opsCount is the gateway's backend calls and ops so far
// (gateway_backend_calls_total, gateway_backend_ops_total).
func opsCount(g *Gateway) (calls, ops uint64) {
	return g.n.backendCalls.Load(), g.n.backendOps.Load()
}

// TestBackendOpsCountScanAndTx: gateway_backend_ops_total counts the ops of
// every backend call, as gateway_backend_calls_total counts the calls: a
// KVSCAN's scan of each shard and a transaction's calls (on memkv, EXEC's
// commit carries one op per key of its commands, and a read after WATCH one
// per key) are ops too, so ops never fall behind calls.
func TestBackendOpsCountScanAndTx(t *testing.T) {
	const shards = 3
	in := startGateway(t, Config{Backend: BackendConfig{Shards: shards}, HTTPAddr: "-"})
	g := in.gw
	ctx := context.Background()
	c := client(t, in, nil)

	calls, ops := opsCount(g)
	require.NoError(t, c.Do(ctx, "KVSCAN", "a", "b").Err())
	c1, o1 := opsCount(g)
	require.Equal(t, uint64(shards), c1-calls, "KVSCAN: a call per shard")
	require.Equal(t, uint64(shards), o1-ops, "KVSCAN: a scan op per shard")

	_, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, "{t}a", "1", 0)
		p.MSet(ctx, "{t}b", "2", "{t}c", "3")
		return nil
	})
	require.NoError(t, err)
	c2, o2 := opsCount(g)
	require.Equal(t, uint64(1), c2-c1, "EXEC on memkv: one call")
	require.Equal(t, uint64(3), o2-o1, "EXEC on memkv: an op per key of its commands")

	require.NoError(t, c.Watch(ctx, func(tx *redis.Tx) error {
		require.NoError(t, tx.MGet(ctx, "{t}a", "{t}b").Err())
		return nil
	}, "{t}a"))
	c3, o3 := opsCount(g)
	// WATCH reads its key from the store (expireWatched): one call, an op.
	require.Equal(t, uint64(2), c3-c2, "WATCH and a read after it on memkv: one call each")
	require.Equal(t, uint64(3), o3-o2, "WATCH and a read after it: an op per key")
}

// TestBackendOpsCountRedisTx: on Redis shards a transaction's round trips
// (WATCH's read of each key, each read inside, the commit script) are
// backend calls, and their keys backend ops.
func TestBackendOpsCountRedisTx(t *testing.T) {
	in, _ := redisGateway(t, 1, 2)
	g := in.gw
	ctx := context.Background()
	c := client(t, in, nil)
	calls, ops := opsCount(g)
	require.NoError(t, c.Watch(ctx, func(tx *redis.Tx) error {
		_, err := tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, "k", "v", 0)
			return nil
		})
		return err
	}, "k"))
	c1, o1 := opsCount(g)
	// WATCH k: one read (1 op); EXEC: the script checks k and writes k (2 ops).
	require.Equal(t, uint64(2), c1-calls, "WATCH's read and the commit")
	require.Equal(t, uint64(3), o1-ops, "the read's key, and the keys the commit checks and writes")
}

// TestReplicaFallbackChargedOnce: a batch of GETs whose replica is
// unreachable is read from the primary: one batch, so one backend call, its
// ops once and one call of the tenant's quota, as the README documents (the
// second attempt is the gateway's recovery, not the tenant's work).
func TestReplicaFallbackChargedOnce(t *testing.T) {
	eachClient(t, func(t *testing.T, kind string) {
		primary := startRedis(t)
		gone := startRedis(t) // a free port with nothing listening
		gone.stop()
		in := startGateway(t, Config{Backend: BackendConfig{Kind: "redis", Redis: []string{primary.addr},
			Replicas: [][]string{{gone.addr}}, Pool: 2, Client: kind},
			Tenants: []TenantConfig{{Name: "default", QuotaRate: 0.001, QuotaBurst: 10}}})
		g := in.gw
		ten := g.tenants["default"]
		ctx := context.Background()
		c := client(t, in, nil)
		require.NoError(t, c.Set(ctx, "rk", "v", 0).Err())
		calls, ops := opsCount(g)
		tenantCalls := ten.backendCalls.Load()
		_, _, tokens := ten.quota.get(time.Now())
		require.Equal(t, "v", c.Get(ctx, "rk").Val(), "read from the primary")
		c1, o1 := opsCount(g)
		assert.Equal(t, uint64(1), c1-calls, "gateway_backend_calls_total")
		assert.Equal(t, uint64(1), o1-ops, "gateway_backend_ops_total")
		assert.Equal(t, uint64(1), ten.backendCalls.Load()-tenantCalls, "the tenant's backend calls")
		_, _, left := ten.quota.get(time.Now())
		assert.InDelta(t, 1, tokens-left, 0.01, "the quota is charged one call")
	})
}
