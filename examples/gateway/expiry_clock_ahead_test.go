package main

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLongPXKeptWithBackendClockAhead: SET PX n with n near the largest
// Redis accepts is kept (capped at 2262) when memkv's clock (the backend's
// clock hook, a test's) is ahead of the wall clock, outside MULTI and in
// it. The cap of the TTL was measured from the wall clock and the expiry
// stamped from the backend's: with that clock more than an hour ahead,
// now+ttl overflowed int64 and the key was written already expired (GET
// answered null at once). Explicit time: the backend's clock, moved ahead.
func TestLongPXKeptWithBackendClockAhead(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-"})
	_, ahead := setMemkvClock(t, in.gw.backend, time.Now().Add(48*time.Hour))
	ctx := context.Background()
	c := client(t, in, nil)
	const px = "9223370000000000000" // accepted: now+px fits Redis's int64 of ms

	require.NoError(t, c.Do(ctx, "SET", "{a}k", "v", "PX", px).Err())
	assert.Equal(t, "v", c.Get(ctx, "{a}k").Val(), "SET PX %s", px)
	_, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Do(ctx, "SET", "{a}t", "v", "PX", px)
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, "v", c.Get(ctx, "{a}t").Val(), "SET PX %s in EXEC", px)

	ahead.Add(int64(100 * 365 * 24 * time.Hour)) // still before the cap
	assert.Equal(t, "v", c.Get(ctx, "{a}k").Val(), "a century later")
}
