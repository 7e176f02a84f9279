package main

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadAfterWatchAndOwnWriteReadsPrimary: with replicas (and the caching
// tier off), a read after WATCH that runs outside the transaction (here
// after the connection's own write) reads the shard's primary, as the README
// promises ("the shard itself"): a replica may be behind a write the primary
// acknowledged before the WATCH, and EXEC, which checks the watched keys on
// the primary from their WATCH on, then committed a value computed from the
// replica's older one over that write, a lost update. The replica here is a
// Redis server of its own that holds the key's older value: a replica that
// has not applied the primary's last write yet. Found by a review.
func TestReadAfterWatchAndOwnWriteReadsPrimary(t *testing.T) {
	eachClient(t, func(t *testing.T, kind string) {
		primary, replica := startRedis(t), startRedis(t)
		ctx := context.Background()
		direct := func(addr string) *redis.Client {
			c := redis.NewClient(&redis.Options{Addr: addr})
			t.Cleanup(func() { _ = c.Close() })
			return c
		}
		p, r := direct(primary.addr), direct(replica.addr)
		require.NoError(t, r.Set(ctx, "{n}k", "1", 0).Err()) // the replica is behind
		require.NoError(t, p.Set(ctx, "{n}k", "5", 0).Err())

		in := startGateway(t, Config{Backend: BackendConfig{Kind: "redis", Redis: []string{primary.addr},
			Replicas: [][]string{{replica.addr}}, Client: kind}})
		c := client(t, in, &redis.Options{PoolSize: 1})
		require.NoError(t, c.Watch(ctx, func(tx *redis.Tx) error {
			require.NoError(t, tx.Set(ctx, "{n}other", "x", 0).Err()) // the connection's own write
			v, err := tx.Get(ctx, "{n}k").Int()
			require.NoError(t, err)
			assert.Equal(t, 5, v, "a GET after WATCH reads the primary, not a replica behind it")
			vals, err := tx.MGet(ctx, "{n}k", "{n}j").Result() // one batch item for the shard
			require.NoError(t, err)
			assert.Equal(t, []any{"5", nil}, vals, "so does an MGET")
			_, err = tx.TxPipelined(ctx, func(pl redis.Pipeliner) error {
				pl.Set(ctx, "{n}k", v+1, 0)
				return nil
			})
			return err
		}, "{n}k"))
		assert.Equal(t, "6", p.Get(ctx, "{n}k").Val(), "EXEC wrote from the primary's value")
	})
}
