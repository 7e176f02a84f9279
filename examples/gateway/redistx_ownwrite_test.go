package main

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// TestRedisExecAfterOwnWrite: TestExecAfterOwnWrite's reads before the
// connection's own write, on a Redis shard. The transaction noted the state
// of the key it read after WATCH, the connection then wrote the key outside
// MULTI, and INCR inside MULTI read it again: two states of one key, so EXEC
// answered null at every retry where Redis commits (it checks only watched
// keys, and the memkv path drops those reads: rebase). A WATCH of the key
// after the write watches it from then on; a watched key the connection
// wrote still aborts EXEC, as in Redis.
func TestRedisExecAfterOwnWrite(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		watch   string
		before  func(tx *redis.Tx, other *redis.Client) error // after WATCH, before MULTI
		aborted bool
		want    int64 // {u}n after the transaction ran, if it ran
	}{
		{"read, then own write of it", "{u}w", func(tx *redis.Tx, _ *redis.Client) error {
			if err := tx.Get(ctx, "{u}n").Err(); err != nil && err != redis.Nil {
				return err
			}
			return tx.Set(ctx, "{u}n", "5", 0).Err()
		}, false, 6},
		{"read, own write, rewatch", "{u}w", func(tx *redis.Tx, _ *redis.Client) error {
			if err := tx.Get(ctx, "{u}n").Err(); err != nil && err != redis.Nil {
				return err
			}
			if err := tx.Set(ctx, "{u}n", "5", 0).Err(); err != nil {
				return err
			}
			return tx.Watch(ctx, "{u}n").Err()
		}, false, 6},
		{"read watched, own write", "{u}n", func(tx *redis.Tx, _ *redis.Client) error {
			if err := tx.Get(ctx, "{u}n").Err(); err != nil && err != redis.Nil {
				return err
			}
			return tx.Set(ctx, "{u}n", "5", 0).Err()
		}, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, _ := redisGateway(t, 1, 2)
			c := client(t, in, &redis.Options{PoolSize: 1})
			other := client(t, in, nil)
			err := c.Watch(ctx, func(tx *redis.Tx) error {
				if err := tc.before(tx, other); err != nil {
					return err
				}
				_, err := tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
					p.Incr(ctx, "{u}n")
					return nil
				})
				return err
			}, tc.watch)
			if tc.aborted {
				require.ErrorIs(t, err, redis.TxFailedErr)
				return
			}
			require.NoError(t, err)
			got, err := other.Get(ctx, "{u}n").Int64()
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}
