package main

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWatchDuplicateKeys: a key named more than once, in one WATCH or in
// WATCHes that follow each other, is watched once. Before, on Redis shards
// WATCH k k read k's state twice (two round trips, charged as two backend
// calls), and on both backends every WATCH added each key it named to the
// transaction's read set again: a loop of WATCH k grew the connection's
// memory without bound until EXEC, past the max_args bound on watched keys.
// A change of the key still aborts EXEC.
func TestWatchDuplicateKeys(t *testing.T) {
	for _, b := range memkvAndRedis() {
		t.Run(b.name, func(t *testing.T) {
			const limit, watches = 8, 20
			in := b.start(t, Config{HTTPAddr: "-", Limits: Limits{MaxArgs: limit}})
			ctx := context.Background()
			other := client(t, in, nil)
			conn := client(t, in, &redis.Options{PoolSize: 1}).Conn()
			t.Cleanup(func() { _ = conn.Close() })
			require.NoError(t, conn.Do(ctx, "CLIENT", "SETNAME", "watcher").Err())

			calls := in.gw.n.backendCalls.Load()
			require.NoError(t, conn.Do(ctx, "WATCH", "{w}a", "{w}a").Err())
			if b.name == "redis" {
				assert.Equal(t, uint64(1), in.gw.n.backendCalls.Load()-calls, "one read of the key's state")
			}
			args := []any{"WATCH"}
			for range limit - 1 { // max_args counts WATCH too
				args = append(args, "{w}a")
			}
			for range watches {
				require.NoError(t, conn.Do(ctx, args...).Err())
			}
			require.NoError(t, conn.Do(ctx, "WATCH", "{w}b").Err(), "a new key after them")
			ss := namedSession(t, in, "watcher")
			assert.Equal(t, 2, len(ss.txs.tx.Request().ReadKeys), "the keys the transaction validates")

			require.NoError(t, other.Set(ctx, "{w}a", "x", 0).Err())
			_, err := conn.TxPipelined(ctx, func(p redis.Pipeliner) error { return p.Set(ctx, "{w}out", "1", 0).Err() })
			require.ErrorIs(t, err, redis.TxFailedErr, "the watched key changed")
		})
	}
}
