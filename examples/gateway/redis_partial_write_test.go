package main

import (
	"context"
	"fmt"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// TestMultiShardWriteFailsAfterOtherShards: an MSET or a DEL whose keys span
// shards is not atomic across them: with one shard down, the command answers
// that shard's error, and the keys of the shards that answered are written
// or deleted all the same (the README says so of both).
func TestMultiShardWriteFailsAfterOtherShards(t *testing.T) {
	in, shards := redisGatewayWith(t, 2, 2, "")
	ctx := context.Background()
	c := client(t, in, nil)
	keyOn := map[int]string{}
	for i := 0; len(keyOn) < 2; i++ {
		k := fmt.Sprint("key", i)
		keyOn[in.gw.shard(k)] = k
	}
	shards[1].stop()

	require.ErrorContains(t, c.MSet(ctx, keyOn[0], "v", keyOn[1], "v").Err(), "backend shard 1")
	require.Equal(t, "v", c.Get(ctx, keyOn[0]).Val(), "shard 0's key written")
	require.ErrorContains(t, c.Del(ctx, keyOn[0], keyOn[1]).Err(), "backend shard 1")
	require.ErrorIs(t, c.Get(ctx, keyOn[0]).Err(), redis.Nil, "shard 0's key deleted")
}
