package main

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// TestExecAfterOwnWrite: a connection that writes outside MULTI after WATCH
// and then reads what it wrote inside MULTI. EXEC ran on the WATCH snapshot:
// it read the value from before the connection's own write and failed its
// validation on that write, so it answered null at every retry (found by a
// review). It now runs at the current version (rebase), and aborts where
// Redis does: when a watched key changed since WATCH, the connection's own
// writes to it included. Each case's outcome is Redis 7's.
func TestExecAfterOwnWrite(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		watch   string
		before  func(tx *redis.Tx, other *redis.Client) error // after WATCH, before MULTI
		aborted bool
		want    int64 // {u}n after the transaction ran, if it ran
	}{
		{"own write of another key", "{u}w", func(tx *redis.Tx, _ *redis.Client) error {
			return tx.Set(ctx, "{u}n", "1", 0).Err()
		}, false, 2},
		{"read, then own write of it", "{u}w", func(tx *redis.Tx, _ *redis.Client) error {
			if err := tx.Get(ctx, "{u}n").Err(); err != nil && err != redis.Nil {
				return err
			}
			return tx.Set(ctx, "{u}n", "5", 0).Err()
		}, false, 6},
		{"own write, then another client's write of the key read", "{u}w", func(tx *redis.Tx, other *redis.Client) error {
			if err := tx.Set(ctx, "{u}n", "1", 0).Err(); err != nil {
				return err
			}
			return other.Set(ctx, "{u}n", "10", 0).Err() // not watched: Redis runs EXEC on it
		}, false, 11},
		{"own write of the watched key", "{u}n", func(tx *redis.Tx, _ *redis.Client) error {
			return tx.Set(ctx, "{u}n", "1", 0).Err()
		}, true, 0},
		{"own write, then another client's write of the watched key", "{u}w", func(tx *redis.Tx, other *redis.Client) error {
			if err := tx.Set(ctx, "{u}n", "1", 0).Err(); err != nil {
				return err
			}
			return other.Set(ctx, "{u}w", "x", 0).Err()
		}, true, 0},
		{"no own write (the snapshot path)", "{u}w", func(*redis.Tx, *redis.Client) error { return nil }, false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := startGateway(t, Config{HTTPAddr: "-"})
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
