package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestKVScanCountsTenantBackendCalls: KVSCAN reads every memkv shard, and
// counts those reads as backend calls for the gateway, the tenant's quota and
// the tenant's own counter (INFO's Tenants section) alike.
func TestKVScanCountsTenantBackendCalls(t *testing.T) {
	in := startGateway(t, Config{Backend: BackendConfig{Kind: "memkv", Shards: 4}})
	c := client(t, in, nil)
	ctx := context.Background()
	tn := in.gw.tenants["default"]
	calls, tenantCalls := in.gw.n.backendCalls.Load(), tn.backendCalls.Load()
	require.NoError(t, c.Do(ctx, "KVSCAN", "a", "b").Err())
	require.Equal(t, uint64(4), in.gw.n.backendCalls.Load()-calls)
	require.Equal(t, uint64(4), tn.backendCalls.Load()-tenantCalls, "the tenant's backend calls")
}
