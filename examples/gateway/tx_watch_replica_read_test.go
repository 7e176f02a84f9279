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
		primary, replica, p := staleReplica(t, "{n}k", "1", "5") // the replica is behind
		ctx := context.Background()

		in := startGateway(t, Config{Backend: BackendConfig{Kind: "redis", Redis: []string{primary},
			Replicas: [][]string{{replica}}, Client: kind}})
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

// staleReplica starts a primary and a "replica" that is a Redis server of
// its own holding key at old while the primary holds it at new: a replica
// that has not applied its primary's last write yet. It returns both
// addresses and a client of the primary, closed at cleanup.
func staleReplica(t *testing.T, key, old, new string) (primary, replica string, p *redis.Client) {
	t.Helper()
	ps, rs := startRedis(t), startRedis(t)
	ctx := context.Background()
	p, r := redis.NewClient(&redis.Options{Addr: ps.addr}), redis.NewClient(&redis.Options{Addr: rs.addr})
	t.Cleanup(func() { _ = p.Close(); _ = r.Close() })
	require.NoError(t, r.Set(ctx, key, old, 0).Err())
	require.NoError(t, p.Set(ctx, key, new, 0).Err())
	return ps.addr, rs.addr, p
}
