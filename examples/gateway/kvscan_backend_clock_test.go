package main

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// TestKVScanExpiryByBackendClock: KVSCAN decides expiry by the memkv
// backend's clock, as GET and the other commands on memkv do. It read the
// wall clock: with the backend's clock ahead of it, KVSCAN returned a key
// that GET answered expired. Explicit time: the backend's clock.
func TestKVScanExpiryByBackendClock(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-"})
	_, clock := setMemkvClock(t, in.gw.backend, time.Now())
	ctx := context.Background()
	c := client(t, in, nil)

	require.NoError(t, c.Set(ctx, "bc:gone", "v", time.Second).Err())
	require.NoError(t, c.Set(ctx, "bc:kept", "w", 0).Err())
	res, err := c.Do(ctx, "KVSCAN", "bc:", "bc;").Slice()
	require.NoError(t, err)
	require.Equal(t, []any{"bc:gone", "v", "bc:kept", "w"}, res, "before the TTL runs out")

	clock.Add(int64(time.Minute)) // bc:gone's TTL runs out by the backend's clock
	require.ErrorIs(t, c.Get(ctx, "bc:gone").Err(), redis.Nil, "GET")
	res, err = c.Do(ctx, "KVSCAN", "bc:", "bc;").Slice()
	require.NoError(t, err)
	require.Equal(t, []any{"bc:kept", "w"}, res, "KVSCAN skips the key GET answers expired")
}
