package main

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMGetOfOtherTypeInMixedBatch: Redis's MGET reads a key of another type
// as missing. When the MGET shares its batch with a write, its keys go to
// the shard as GETs, one of which answers WRONGTYPE: the MGET must still
// answer its values, with a null for that key, not the error.
func TestMGetOfOtherTypeInMixedBatch(t *testing.T) {
	eachClient(t, func(t *testing.T, kind string) {
		in, shards := redisGatewayWith(t, 1, 2, kind)
		ctx := context.Background()
		direct := redis.NewClient(&redis.Options{Addr: shards[0].addr, MaxRetries: -1})
		t.Cleanup(func() { _ = direct.Close() })
		require.NoError(t, direct.Set(ctx, "s", "v", 0).Err())
		require.NoError(t, direct.RPush(ctx, "l", "x").Err())
		c := client(t, in, nil)
		// One pipeline run: the MGET and the SET are one batch item.
		var mget *redis.SliceCmd
		_, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
			mget = p.MGet(ctx, "s", "l")
			p.Set(ctx, "w", "1", 0)
			return nil
		})
		require.NoError(t, err)
		assert.Equal(t, []any{"v", nil}, mget.Val())
		// Alone, the MGET answers the same.
		vals, err := c.MGet(ctx, "s", "l").Result()
		require.NoError(t, err)
		assert.Equal(t, []any{"v", nil}, vals)

		// A GET of that key answers WRONGTYPE as in Redis when its batch
		// mixes it with a write, and null when the batch holds only GETs
		// (one MGET): the difference the README documents.
		var get *redis.StringCmd
		_, err = c.Pipelined(ctx, func(p redis.Pipeliner) error {
			get = p.Get(ctx, "l")
			p.Set(ctx, "w", "2", 0)
			return nil
		})
		require.ErrorContains(t, err, "WRONGTYPE")
		require.ErrorContains(t, get.Err(), "WRONGTYPE")
		require.ErrorIs(t, c.Get(ctx, "l").Err(), redis.Nil)
	})
}
