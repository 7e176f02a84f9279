package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRedisMultiKeyDelOnOneShardIsAtomic: the keys of a DEL that share a
// Redis shard are deleted at once, as Redis deletes them (the README: the
// keys of an MSET or a DEL that share a shard are written at once), so a
// concurrent MGET on the shard never finds some deleted and others not.
// Before, the DEL went as a pipeline of single-key DELs, which the shard
// reads in chunks of 16 KiB and runs chunk by chunk, serving its other
// clients between them.
func TestRedisMultiKeyDelOnOneShardIsAtomic(t *testing.T) {
	eachClient(t, func(t *testing.T, kind string) {
		in, shards := redisGatewayWith(t, 1, 2, kind)
		ctx := context.Background()
		direct := redis.NewClient(&redis.Options{Addr: shards[0].addr, MaxRetries: -1})
		t.Cleanup(func() { _ = direct.Close() })
		c := client(t, in, nil)
		keys := make([]string, 400) // 400 DELs of 100-byte keys: over 16 KiB
		pairs := make([]any, 0, 2*len(keys))
		for i := range keys {
			keys[i] = fmt.Sprintf("{t}%03d%s", i, strings.Repeat("k", 94))
			pairs = append(pairs, keys[i], "v")
		}
		first, last := keys[0], keys[len(keys)-1]
		for round := range 20 {
			require.NoError(t, c.MSet(ctx, pairs...).Err())
			done := make(chan struct{})
			torn := make(chan []any, 1)
			go func() {
				defer close(torn)
				for {
					select {
					case <-done:
						return
					default:
					}
					v, err := direct.MGet(ctx, first, last).Result()
					if err == nil && (v[0] == nil) != (v[1] == nil) {
						torn <- v
						return
					}
				}
			}()
			n, err := c.Del(ctx, keys...).Result()
			close(done)
			require.NoError(t, err)
			require.Equal(t, int64(len(keys)), n)
			if v, ok := <-torn; ok {
				assert.Fail(t, "an MGET saw the DEL half applied", "round %d: %v", round, v)
				return
			}
		}
	})
}

// TestRedisJointRunInMixedBatch: a batch that mixes a multi-key write's
// joint run (one DEL, one MSET) with other ops answers each op as it would
// have been answered one command per key, the caching tier's PTTLs included.
func TestRedisJointRunInMixedBatch(t *testing.T) {
	eachClient(t, func(t *testing.T, kind string) {
		in, _ := redisGatewayWith(t, 1, 2, kind)
		ctx := context.Background()
		r, _ := asRedis(in.gw.backend)
		require.NoError(t, r.shards[0].MSet(ctx, "a", "1", "c", "3", "g", "7").Err())
		ops := []op{
			{kind: opGet, key: "g"},
			{kind: opDel, key: "a"}, {kind: opDel, key: "b", joint: true}, {kind: opDel, key: "c", joint: true},
			{kind: opSet, key: "x", value: []byte("1"), ttl: time.Minute},
			{kind: opSet, key: "m", value: []byte("m1")}, {kind: opSet, key: "n", value: []byte("n1"), joint: true},
			{kind: opDel, key: "m"},
			{kind: opGet, key: "n"},
		}
		out := make([]opResult, len(ops))
		require.NoError(t, r.data[0].pipeline(ctx, ops, out, true))
		for i, o := range out {
			require.NoError(t, o.err, i)
		}
		found := make([]bool, len(out))
		for i, o := range out {
			found[i] = o.found
		}
		assert.Equal(t, []bool{true, true, true, true, true, true}, append(found[:1], found[4:]...))
		assert.Equal(t, 2, countTrue(out[1:4]), "DEL a b c deletes a and c")
		assert.Equal(t, "7", string(out[0].value))
		assert.Equal(t, "n1", string(out[8].value))
		assert.Zero(t, out[8].expireAt, "n has no expiry")
		assert.Equal(t, int64(0), r.shards[0].Exists(ctx, "a", "b", "c", "m").Val())
	})
}

func countTrue(rs []opResult) int {
	n := 0
	for _, r := range rs {
		if r.found {
			n++
		}
	}
	return n
}
