package main

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKeylessExecNotThrottled: a transaction that calls no backend (only
// PING, ECHO, ... queued, nothing watched) runs as its commands do outside
// MULTI, without admission: a tenant over its quota, whose PING is
// answered, got THROTTLED for MULTI, PING, EXEC, though the transaction
// has no backend call to charge, and the refusal counted in no throttled
// count (it counted its zero data commands).
func TestKeylessExecNotThrottled(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-", Tenants: []TenantConfig{{Name: "default", QuotaRate: 0.001, QuotaBurst: 1}}})
	g := in.gw
	ctx := context.Background()
	c := client(t, in, nil).Conn()
	defer c.Close()
	require.NoError(t, c.Ping(ctx).Err())
	ten := g.tenants["default"]
	ten.quota.charge(time.Now(), 5) // in debt: its data commands are throttled
	require.ErrorContains(t, c.Get(ctx, "k").Err(), "THROTTLED")
	throttled := ten.throttled.Load()

	cmds, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Ping(ctx)
		p.Echo(ctx, "x")
		return nil
	})
	require.NoError(t, err, "no backend call: nothing to throttle")
	require.Len(t, cmds, 2)
	assert.Equal(t, "x", cmds[1].(*redis.StringCmd).Val())
	assert.Equal(t, throttled, ten.throttled.Load())
	assert.Zero(t, g.n.backendCalls.Load(), "and none made")
}

// TestRedisWatchedKeylessExecThrottledCounted: on Redis shards the commit of
// a transaction with watched keys checks them, a backend call, so it is
// admitted even without data commands; refused over quota it counts as one
// throttled command, as its OVERLOADED counts as one overloaded.
func TestRedisWatchedKeylessExecThrottledCounted(t *testing.T) {
	r := startRedis(t)
	in := startGateway(t, Config{HTTPAddr: "-", Backend: BackendConfig{Kind: "redis", Redis: []string{r.addr}, Pool: 2},
		Tenants: []TenantConfig{{Name: "default", QuotaRate: 0.001, QuotaBurst: 10}}})
	g := in.gw
	ctx := context.Background()
	c := client(t, in, nil).Conn()
	defer c.Close()
	require.NoError(t, c.Do(ctx, "WATCH", "w").Err())
	ten := g.tenants["default"]
	ten.quota.charge(time.Now(), 20)
	throttled, all := ten.throttled.Load(), g.n.throttled.Load()
	require.NoError(t, c.Do(ctx, "MULTI").Err())
	require.NoError(t, c.Do(ctx, "PING").Err())
	require.ErrorContains(t, c.Do(ctx, "EXEC").Err(), "THROTTLED")
	assert.Equal(t, uint64(1), ten.throttled.Load()-throttled, "the tenant's throttled")
	assert.Equal(t, uint64(1), g.n.throttled.Load()-all, "gateway_throttled_total")
}
