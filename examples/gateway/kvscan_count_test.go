package main

import (
	"context"
	"testing"
	"time"

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

// failingAfter is a context whose Err is nil for its first n calls and
// context.Canceled after: memkv checks it once per scan, so the scans after
// the n-th fail.
type failingAfter struct {
	context.Context
	n int
}

func (c *failingAfter) Err() error {
	if c.n--; c.n < 0 {
		return context.Canceled
	}
	return nil
}

// TestKVScanFailedCountsCallsMade: a KVSCAN whose read of a later shard fails
// is charged and counted the reads it made before, as a batch that fails is
// charged as sent. It returned the error before counting any: a scan that ran
// out of time on its last shard cost its tenant nothing.
func TestKVScanFailedCountsCallsMade(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-", Backend: BackendConfig{Kind: "memkv", Shards: 4},
		Tenants: []TenantConfig{{Name: "default", QuotaRate: 1, QuotaBurst: 10}}})
	tn := in.gw.tenants["default"]
	s := &session{g: in.gw, tenant: tn}
	ctx := &failingAfter{Context: context.Background(), n: 2}
	r := commands["KVSCAN"].fn(ctx, s, [][]byte{[]byte("KVSCAN"), []byte("a"), []byte("b")})
	require.IsType(t, respErr(""), r)
	require.Equal(t, uint64(3), in.gw.n.backendCalls.Load(), "two scans and the one that failed")
	require.Equal(t, uint64(3), tn.backendCalls.Load(), "the tenant's backend calls")
	_, _, tokens := tn.quota.get(time.Now())
	require.Less(t, tokens, 7.5, "the quota charged them")
}
