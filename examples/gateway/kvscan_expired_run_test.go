package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestKVScanExpiredRunFewCalls: a KVSCAN scans a shard on past its expired
// keys, and each pass read LIMIT keys: KVSCAN LIMIT 1 over a run of 2,000
// expired keys (which stay in memkv until writes sweep them) made 2,001
// scans of the one shard, each a backend call charged to the tenant's quota,
// for a command admitted at cost 1. The passes past the first read keys in
// chunks, so the calls grow with the expired keys over the chunk.
func TestKVScanExpiredRunFewCalls(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-", Backend: BackendConfig{Kind: "memkv", Shards: 1}})
	ctx := context.Background()
	c := client(t, in, nil)
	be := mustMemkv(t, in.gw.backend)
	past := time.Now().Add(-time.Hour).UnixNano()
	for i := range 2000 {
		_, err := be.stores[0].Put(ctx, []byte(fmt.Sprintf("e:%05d", i)), encodeValue([]byte("gone"), past))
		require.NoError(t, err)
	}
	require.NoError(t, c.Set(ctx, "e:z", "live", 0).Err())
	calls := in.gw.n.backendCalls.Load()
	res, err := c.Do(ctx, "KVSCAN", "e:", "", "LIMIT", "1").Slice()
	require.NoError(t, err)
	require.Equal(t, []any{"e:z", "live"}, res)
	require.LessOrEqual(t, in.gw.n.backendCalls.Load()-calls, uint64(4), "scans of one shard for one live key")
}
