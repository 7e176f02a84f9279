package main

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
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
