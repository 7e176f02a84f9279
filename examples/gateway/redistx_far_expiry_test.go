package main

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRedisTxFarExpiry: a key given an expiry past 2262 on the shard
// directly (EXPIRE k 9999999999, about 317 years, which Redis accepts) is
// live inside a transaction as outside it, and INCR keeps its expiry. Its
// PEXPIRETIME in nanoseconds overflowed the transaction encoding's int64:
// the key read as expired, GET answered null and INCR reset the counter to
// 1 without expiry.
func TestRedisTxFarExpiry(t *testing.T) {
	gw, direct := redisTxSetup(t)
	ctx := context.Background()
	require.NoError(t, direct.Set(ctx, "fx:n", "41", 0).Err())
	require.NoError(t, direct.Do(ctx, "EXPIRE", "fx:n", int64(9999999999)).Err())
	at := direct.PExpireTime(ctx, "fx:n").Val()

	cn := gw.Conn()
	defer cn.Close()
	require.NoError(t, cn.Do(ctx, "WATCH", "fx:n").Err())
	assert.Equal(t, "41", cn.Get(ctx, "fx:n").Val(), "GET after WATCH")
	res, err := cn.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Exists(ctx, "fx:n")
		p.Incr(ctx, "fx:n")
		p.Incr(ctx, "fx:n")
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, int64(1), res[0].(*redis.IntCmd).Val(), "EXISTS inside MULTI")
	assert.Equal(t, int64(43), res[2].(*redis.IntCmd).Val(), "INCR inside MULTI")
	assert.Equal(t, "43", direct.Get(ctx, "fx:n").Val())
	assert.Equal(t, at, direct.PExpireTime(ctx, "fx:n").Val(), "INCR keeps the expiry")
}
