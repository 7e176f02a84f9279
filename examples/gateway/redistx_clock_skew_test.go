package main

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRedisTxExpiryByShardClock: on Redis shards, the expiries of a
// transaction's commands are the shard's, as outside a transaction (SET EX
// sends a TTL the shard counts from its clock): the gateway's clock apart
// from the shard's must move none. Before, EXEC sent a SET EX as an
// absolute PXAT of the gateway's clock, and judged a value read as expired
// by it: with the gateway's clock a minute behind, SET k v EX 100 in MULTI
// lived 40 s; a minute ahead, a GET in MULTI answered null for a key the
// shard holds for 30 s more. Explicit time: the gateway's clock, skewed.
func TestRedisTxExpiryByShardClock(t *testing.T) {
	in, shards := redisGateway(t, 1, 4)
	b, ok := asRedis(in.gw.backend)
	require.True(t, ok)
	direct := redis.NewClient(&redis.Options{Addr: shards[0].addr, MaxRetries: -1})
	t.Cleanup(func() { _ = direct.Close() })
	gw := client(t, in, nil)
	ctx := context.Background()

	for _, skew := range []time.Duration{-time.Minute, time.Minute} {
		b.now = func() time.Time { return time.Now().Add(skew) }
		_, err := gw.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, "{s}set", "v", 100*time.Second)
			return nil
		})
		require.NoError(t, err)
		ttl := direct.PTTL(ctx, "{s}set").Val()
		assert.InDelta(t, 100*time.Second, ttl, float64(5*time.Second), "skew %v: SET EX 100 in EXEC", skew)

		require.NoError(t, direct.Set(ctx, "{s}live", "v", 30*time.Second).Err())
		cmds, err := gw.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Get(ctx, "{s}live")
			p.IncrBy(ctx, "{s}n", 0)
			return nil
		})
		require.NoError(t, err, "skew %v", skew)
		assert.Equal(t, "v", cmds[0].(*redis.StringCmd).Val(), "skew %v: GET in EXEC of a live key", skew)

		// INCR keeps the key's own expiry, to the millisecond.
		require.NoError(t, direct.Set(ctx, "{s}n", "1", time.Hour).Err())
		at := direct.PExpireTime(ctx, "{s}n").Val()
		_, err = gw.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Incr(ctx, "{s}n")
			return nil
		})
		require.NoError(t, err)
		assert.Equal(t, at, direct.PExpireTime(ctx, "{s}n").Val(), "skew %v: INCR in EXEC keeps the expiry", skew)
	}
}
