package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestCoalescedGetExpiryByBackendClock: a GET through the coalescing group
// (no caching tier) on memkv judges its fetch's expiry by the backend's
// clock (expiryNow), which stamped and read it, as a GET with coalescing off
// does. It read the wall clock: with the store's clock behind it (explicit
// time, the backend's), a GET answered null for a key its store served, and
// an MGET read as present.
func TestCoalescedGetExpiryByBackendClock(t *testing.T) {
	in := startGateway(t, Config{})
	require.True(t, in.gw.coalesceOn.Load())
	be := mustMemkv(t, in.gw.backend)
	behind := time.Now().Add(-time.Hour)
	be.now = func() time.Time { return behind }
	ctx := context.Background()
	c := client(t, in, nil)
	require.NoError(t, c.Set(ctx, "ck", "v", time.Minute).Err())
	got, err := c.MGet(ctx, "ck").Result()
	require.NoError(t, err)
	require.Equal(t, []any{"v"}, got, "the store serves the key")
	require.Equal(t, "v", c.Get(ctx, "ck").Val(), "GET refused a value its store serves")
}
