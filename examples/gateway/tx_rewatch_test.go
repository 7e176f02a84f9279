package main

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// TestRewatchAfterOtherWrite: WATCH b; another client writes a; WATCH a;
// MULTI; INCR a; EXEC. Redis checks each key from the WATCH that named it,
// so it commits: a changed before it was watched. On memkv a later WATCH's
// keys were validated from the first WATCH's snapshot, so EXEC answered
// null, and at every retry while others wrote a between the two WATCHes
// (found by a review; TestRewatchAfterOwnWrite is the connection's own
// write). Each case's outcome is Redis 7's, on both backends; a change of
// a key after its WATCH, or of a key read after WATCH, still aborts.
func TestRewatchAfterOtherWrite(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		between func(tx *redis.Tx, other *redis.Client) error // after the second WATCH, before MULTI
		aborted bool
	}{
		{"no change after the second WATCH", func(*redis.Tx, *redis.Client) error { return nil }, false},
		{"a changes after its WATCH", func(_ *redis.Tx, other *redis.Client) error {
			return other.Set(ctx, "{r}a", "7", 0).Err()
		}, true},
		{"b changes after its WATCH", func(_ *redis.Tx, other *redis.Client) error {
			return other.Set(ctx, "{r}b", "7", 0).Err()
		}, true},
		{"a read after the second WATCH, own write of another key", func(tx *redis.Tx, _ *redis.Client) error {
			if err := tx.Get(ctx, "{r}a").Err(); err != nil {
				return err
			}
			return tx.Set(ctx, "{r}c", "1", 0).Err()
		}, false},
	} {
		for _, backend := range []string{"memkv", "redis"} {
			t.Run(backend+"/"+tc.name, func(t *testing.T) {
				in := gatewayOn(t, backend)
				c := client(t, in, &redis.Options{PoolSize: 1})
				other := client(t, in, nil)
				err := c.Watch(ctx, func(tx *redis.Tx) error {
					if err := other.Set(ctx, "{r}a", "1", 0).Err(); err != nil {
						return err
					}
					if err := tx.Watch(ctx, "{r}a").Err(); err != nil {
						return err
					}
					if err := tc.between(tx, other); err != nil {
						return err
					}
					_, err := tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
						p.Incr(ctx, "{r}a")
						return nil
					})
					return err
				}, "{r}b")
				if tc.aborted {
					require.ErrorIs(t, err, redis.TxFailedErr)
					return
				}
				require.NoError(t, err, "a changed before its WATCH: Redis commits")
				v, err := other.Get(ctx, "{r}a").Int()
				require.NoError(t, err)
				require.Equal(t, 2, v)
			})
		}
	}
}

// TestRewatchKeepsEarlierReadsValidated: WATCH b; GET c (from the
// transaction's snapshot); another client writes c; WATCH a. The read of
// c is still validated at EXEC (README: every key read is), though the
// later WATCH moves the transaction on.
func TestRewatchKeepsEarlierReadsValidated(t *testing.T) {
	ctx := context.Background()
	in := startGateway(t, Config{HTTPAddr: "-"})
	c := client(t, in, &redis.Options{PoolSize: 1})
	other := client(t, in, nil)
	require.NoError(t, other.Set(ctx, "{v}c", "1", 0).Err())
	err := c.Watch(ctx, func(tx *redis.Tx) error {
		if err := tx.Get(ctx, "{v}c").Err(); err != nil {
			return err
		}
		if err := other.Set(ctx, "{v}c", "2", 0).Err(); err != nil {
			return err
		}
		if err := tx.Watch(ctx, "{v}a").Err(); err != nil {
			return err
		}
		_, err := tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, "{v}a", "x", 0)
			return nil
		})
		return err
	}, "{v}b")
	require.ErrorIs(t, err, redis.TxFailedErr, "c changed since it was read")
}
