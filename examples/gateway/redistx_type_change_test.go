package main

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRedisTxWatchedKeyChangesType: a watched key that another client
// turns into a list between WATCH and EXEC (a string replaced, or an
// absent key created) aborts EXEC with a null reply, as Redis does for any
// change of a watched key; nothing of the transaction is applied. The
// commit script's check read it with GET, whose WRONGTYPE error stopped the
// script: EXEC answered that error, which Redis never answers for it, and a
// client's WATCH loop failed instead of retrying.
func TestRedisTxWatchedKeyChangesType(t *testing.T) {
	gw, direct := redisTxSetup(t)
	ctx := context.Background()
	for _, before := range []string{"string", "absent"} {
		t.Run(before, func(t *testing.T) {
			k := "wt:" + before
			if before == "string" {
				require.NoError(t, direct.Set(ctx, k, "a", 0).Err())
			}
			err := gw.Watch(ctx, func(tx *redis.Tx) error {
				require.NoError(t, direct.Del(ctx, k).Err())
				require.NoError(t, direct.RPush(ctx, k, "x").Err())
				_, err := tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
					p.Set(ctx, "wt:out", before, 0)
					return nil
				})
				return err
			}, k)
			require.ErrorIs(t, err, redis.TxFailedErr)
			require.ErrorIs(t, direct.Get(ctx, "wt:out").Err(), redis.Nil, "an aborted transaction wrote")
		})
	}
}

// TestRedisTxOtherTypes: keys of another type than string (a list here) in
// a transaction on a Redis shard answer as in Redis: WATCH watches them (a
// change aborts EXEC, none lets it commit); inside MULTI, EXISTS counts
// them, MGET reads them as null, DEL deletes them, SET NX leaves them, GET
// and INCR answer WRONGTYPE alone. Every one of those answered WRONGTYPE,
// and DEL deleted nothing.
func TestRedisTxOtherTypes(t *testing.T) {
	gw, direct := redisTxSetup(t)
	ctx := context.Background()
	list := func(k string) {
		require.NoError(t, direct.Del(ctx, k).Err())
		require.NoError(t, direct.RPush(ctx, k, "x").Err())
	}

	list("ot:l")
	err := gw.Watch(ctx, func(tx *redis.Tx) error {
		_, err := tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, "ot:out", "1", 0)
			return nil
		})
		return err
	}, "ot:l")
	require.NoError(t, err, "EXEC after WATCH of an unchanged list")
	require.Equal(t, "1", direct.Get(ctx, "ot:out").Val())

	err = gw.Watch(ctx, func(tx *redis.Tx) error {
		require.NoError(t, direct.RPush(ctx, "ot:l", "y").Err())
		_, err := tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, "ot:out", "2", 0)
			return nil
		})
		return err
	}, "ot:l")
	require.ErrorIs(t, err, redis.TxFailedErr, "EXEC after WATCH of a list pushed to")
	require.Equal(t, "1", direct.Get(ctx, "ot:out").Val())

	list("ot:l")
	res, err := gw.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Exists(ctx, "ot:l")
		p.MGet(ctx, "ot:l")
		p.SetNX(ctx, "ot:l", "v", 0)
		p.Get(ctx, "ot:l")
		p.Incr(ctx, "ot:l")
		p.Del(ctx, "ot:l")
		return nil
	})
	require.ErrorContains(t, err, "WRONGTYPE")
	require.Len(t, res, 6)
	assert.Equal(t, int64(1), res[0].(*redis.IntCmd).Val(), "EXISTS")
	assert.Equal(t, []any{nil}, res[1].(*redis.SliceCmd).Val(), "MGET")
	assert.False(t, res[2].(*redis.BoolCmd).Val(), "SET NX")
	assert.ErrorContains(t, res[3].Err(), "WRONGTYPE", "GET")
	assert.ErrorContains(t, res[4].Err(), "WRONGTYPE", "INCR")
	assert.Equal(t, int64(1), res[5].(*redis.IntCmd).Val(), "DEL")
	assert.Equal(t, int64(0), direct.Exists(ctx, "ot:l").Val(), "DEL deleted the list")
}
