package main

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// TestKeylessExecChargesNothing: on memkv, a transaction whose commands name
// no key (MULTI then EXEC, or only PING, ECHO, UNWATCH) reads and writes
// nothing, and its commit does not call the store: it makes no backend
// call, and none is charged to the tenant's quota or counted. Each such
// EXEC was counted and charged one.
func TestKeylessExecChargesNothing(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-", Tenants: []TenantConfig{{Name: "default", QuotaRate: 0.001, QuotaBurst: 2}}})
	ctx := context.Background()
	c := client(t, in, nil).Conn()
	defer c.Close()
	tn := in.gw.tenants["default"]
	for range 3 {
		_, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Ping(ctx)
			p.Echo(ctx, "x")
			return nil
		})
		require.NoError(t, err)
		require.NoError(t, c.Do(ctx, "MULTI").Err())
		require.NoError(t, c.Do(ctx, "EXEC").Err())
	}
	require.Zero(t, in.gw.n.backendCalls.Load(), "no backend call made")
	require.Zero(t, tn.backendCalls.Load(), "none counted for the tenant")
	require.NoError(t, c.Set(ctx, "k", "v", 0).Err(), "nor charged: its allowance is whole")
}
