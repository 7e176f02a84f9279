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
// writes to it included. Each case's outcome is Redis 7's, on both
// backends: on a Redis shard the transaction noted the state of a key read
// after WATCH, and a read of it inside MULTI after the connection's own
// write saw a second state, so EXEC answered null at every retry there too
// (found by a review; the reads before the own write are now dropped).
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
		for _, backend := range []string{"memkv", "redis"} {
			t.Run(backend+"/"+tc.name, func(t *testing.T) {
				in := gatewayOn(t, backend)
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
}

// TestRewatchAfterOwnWrite: WATCH b; SET a (own write outside MULTI);
// WATCH a; MULTI; INCR a; EXEC. Redis checks each key from the WATCH that
// named it, so it commits: a was written before it was watched. The rebase
// checked every watched key from the first WATCH, and answered null at
// every retry (found by a review). A change after the second WATCH still
// aborts it.
func TestRewatchAfterOwnWrite(t *testing.T) {
	ctx := context.Background()
	in := startGateway(t, Config{HTTPAddr: "-"})
	c := client(t, in, &redis.Options{PoolSize: 1})
	other := client(t, in, nil)
	for _, changeAfter := range []bool{false, true} {
		err := c.Watch(ctx, func(tx *redis.Tx) error {
			if err := tx.Set(ctx, "{r}a", "1", 0).Err(); err != nil {
				return err
			}
			if err := tx.Watch(ctx, "{r}a").Err(); err != nil {
				return err
			}
			if changeAfter {
				if err := other.Set(ctx, "{r}a", "7", 0).Err(); err != nil {
					return err
				}
			}
			_, err := tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.Incr(ctx, "{r}a")
				return nil
			})
			return err
		}, "{r}b")
		if changeAfter {
			require.ErrorIs(t, err, redis.TxFailedErr, "a changed after its WATCH")
			continue
		}
		require.NoError(t, err)
		v, err := other.Get(ctx, "{r}a").Int()
		require.NoError(t, err)
		require.Equal(t, 2, v)
	}
}

// TestCreateThenDeleteAbortsWatchers: a transaction that creates a key and
// deletes it again nets out to no write, which memkv does not version, so a
// connection watching the key committed where Redis aborts it: the key was
// touched (found by a review).
func TestCreateThenDeleteAbortsWatchers(t *testing.T) {
	ctx := context.Background()
	in := startGateway(t, Config{HTTPAddr: "-"})
	w := client(t, in, &redis.Options{PoolSize: 1})
	other := client(t, in, nil)
	err := w.Watch(ctx, func(tx *redis.Tx) error {
		_, err := other.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, "{d}b", "x", 0)
			p.Del(ctx, "{d}b")
			return nil
		})
		if err != nil {
			return err
		}
		_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, "{d}r", "done", 0)
			return nil
		})
		return err
	}, "{d}b")
	require.ErrorIs(t, err, redis.TxFailedErr)
	require.ErrorIs(t, other.Get(ctx, "{d}r").Err(), redis.Nil, "the aborted transaction wrote")
}

// gatewayOn starts a gateway on backend: "memkv" (embedded), or "redis" (one
// redis-server shard, two connections).
func gatewayOn(t *testing.T, backend string) *instance {
	t.Helper()
	if backend == "redis" {
		in, _ := redisGateway(t, 1, 2)
		return in
	}
	return startGateway(t, Config{HTTPAddr: "-"})
}
