package main

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTxExpiryByBackendClock: the commands of a transaction on memkv (run by
// EXEC, and the reads after WATCH) decide expiry by the backend's clock, as
// the commands outside a transaction and the WATCH and EXEC checks
// (expireWatched, watchedExpired) do. They read the wall clock: with the
// backend's clock ahead of it, a GET in EXEC or after WATCH answered a key
// that a GET outside answered expired, and a SET PX in EXEC wrote a key
// already expired by the clock that reads it. Explicit time: the backend's
// clock.
func TestTxExpiryByBackendClock(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-"})
	_, clock := setMemkvClock(t, in.gw.backend, time.Now())
	ctx := context.Background()
	c := client(t, in, nil)
	const k, k2 = "{c}k", "{c}k2"

	require.NoError(t, c.Set(ctx, k, "v", time.Second).Err())
	clock.Add(int64(time.Minute)) // k's TTL runs out by the backend's clock
	require.ErrorIs(t, c.Get(ctx, k).Err(), redis.Nil, "outside a transaction")

	cmds, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Get(ctx, k)
		return nil
	})
	require.Len(t, cmds, 1)
	assert.ErrorIs(t, err, redis.Nil)
	assert.ErrorIs(t, cmds[0].Err(), redis.Nil, "GET in EXEC")

	cn := c.Conn()
	defer cn.Close()
	require.NoError(t, cn.Do(ctx, "WATCH", "{c}w").Err())
	assert.ErrorIs(t, cn.Get(ctx, k).Err(), redis.Nil, "GET after WATCH")
	require.NoError(t, cn.Do(ctx, "UNWATCH").Err())

	// A SET PX in EXEC lives its TTL by the clock that reads it.
	_, err = c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, k2, "v", time.Second)
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, "v", c.Get(ctx, k2).Val(), "set in EXEC, read at once")
	clock.Add(int64(2 * time.Second))
	assert.ErrorIs(t, c.Get(ctx, k2).Err(), redis.Nil, "set in EXEC, read after its TTL")
}
