package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestKVScanExpiredKeysSkipNoLiveKey: expired keys stay in memkv until the
// next write, and each shard's scan counted them towards the limit. With
// LIMIT 2, a shard whose first two keys had expired gave none, and the
// merge returned the other shard's keys in their place: the live key of the
// first shard between them was left out, and a client paging from the last
// key returned never saw it. The scan returns the first live pairs of the
// range, in key order.
func TestKVScanExpiredKeysSkipNoLiveKey(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-", Backend: BackendConfig{Kind: "memkv", Shards: 2}})
	ctx := context.Background()
	c := client(t, in, nil)
	be := mustMemkv(t, in.gw.backend)
	// Three keys of shard 0, then two of shard 1 above them, in key order.
	var a, b []string
	for i := 0; i < 1000 && len(b) < 2; i++ {
		switch k := fmt.Sprintf("s:%04d", i); {
		case len(a) < 3 && in.gw.shard(k) == 0:
			a = append(a, k)
		case len(a) == 3 && in.gw.shard(k) == 1:
			b = append(b, k)
		}
	}
	require.Len(t, b, 2)
	past := time.Now().Add(-time.Hour).UnixNano()
	for _, k := range a[:2] {
		_, err := be.stores[in.gw.shard(k)].Put(ctx, []byte(k), encodeValue([]byte("gone"), past))
		require.NoError(t, err)
	}
	for _, k := range []string{a[2], b[0], b[1]} {
		require.NoError(t, c.Set(ctx, k, k, 0).Err())
	}
	res, err := c.Do(ctx, "KVSCAN", "s:", "", "LIMIT", "2").Slice()
	require.NoError(t, err)
	require.Equal(t, []any{a[2], a[2], b[0], b[0]}, res, "the first two live keys of the range")
}
