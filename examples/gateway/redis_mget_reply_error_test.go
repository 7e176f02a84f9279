package main

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMGetErrorReplyFailsItsGets: a shard that answers a batch of GETs (one
// MGET) with an error reply (LOADING while a restarted primary loads its
// dataset, BUSY while a script runs; here NOPERM, the shard's ACL refusing
// MGET) has answered: each GET of the batch fails with that reply, code
// and all, as each SET of an MSET does and each command of a mixed batch,
// and the shard is not counted as unreachable. Before, the batch failed as
// if the shard were down: `-ERR backend shard 0: NOPERM ...` (a client no
// longer saw the code: go-redis retries LOADING, not ERR), the shard marked
// down and its failed batches counted.
func TestMGetErrorReplyFailsItsGets(t *testing.T) {
	eachClient(t, func(t *testing.T, kind string) {
		in, shards := redisGatewayWith(t, 1, 2, kind)
		ctx := context.Background()
		direct := redis.NewClient(&redis.Options{Addr: shards[0].addr, MaxRetries: -1})
		t.Cleanup(func() { _ = direct.Close() })
		require.NoError(t, direct.Do(ctx, "ACL", "SETUSER", "default", "-mget").Err())
		c := client(t, in, nil)
		require.NoError(t, c.Set(ctx, "k", "v", 0).Err(), "the shard serves the data path but MGET")

		err := c.Get(ctx, "k").Err()
		require.Error(t, err)
		assert.Regexp(t, "^NOPERM ", err.Error(), "the shard's reply, as it answered it")
		assert.False(t, in.gw.health[0].down.Load(), "the shard answered: not marked down")
		assert.Zero(t, in.gw.health[0].failed.Load(), "no failed batch")
	})
}
