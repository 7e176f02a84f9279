package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMemkvWatchedKeylessExecCharged: on memkv, EXEC of a transaction with
// a watched key and no data command (WATCH k, MULTI, PING, EXEC) commits
// through the store to check the watched key, a backend call the tenant
// caused, as the commit script's check is on Redis shards
// (TestRedisWatchedKeylessExecThrottledCounted). It is admitted and charged
// one call: it was neither, so a tenant over its quota looped it unthrottled.
func TestMemkvWatchedKeylessExecCharged(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-", Tenants: []TenantConfig{{Name: "default", QuotaRate: 0.001, QuotaBurst: 10}}})
	g := in.gw
	ctx := context.Background()
	c := client(t, in, nil).Conn()
	defer c.Close()
	ten := g.tenants["default"]

	require.NoError(t, c.Do(ctx, "WATCH", "w").Err())
	require.NoError(t, c.Do(ctx, "MULTI").Err())
	require.NoError(t, c.Do(ctx, "PING").Err())
	require.NoError(t, c.Do(ctx, "EXEC").Err())
	// WATCH's read of w (TestMemkvWatchCountsAsARequest), then the commit's.
	assert.Equal(t, uint64(2), g.n.backendCalls.Load(), "the commit's check: one backend call")
	assert.Equal(t, uint64(2), ten.backendCalls.Load(), "the tenant's")
	_, _, tokens := ten.quota.get(time.Now())
	assert.InDelta(t, 8, tokens, 0.01, "charged one call")

	throttled := ten.throttled.Load()
	require.NoError(t, c.Do(ctx, "WATCH", "w").Err())
	ten.quota.charge(time.Now(), 20) // in debt
	require.NoError(t, c.Do(ctx, "MULTI").Err())
	require.NoError(t, c.Do(ctx, "PING").Err())
	require.ErrorContains(t, c.Do(ctx, "EXEC").Err(), "THROTTLED", "admitted as a backend call")
	assert.Equal(t, uint64(1), ten.throttled.Load()-throttled, "counted once")
	assert.Equal(t, uint64(3), g.n.backendCalls.Load(), "the refused EXEC called nothing")
}
