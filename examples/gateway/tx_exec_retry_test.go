package main

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
)

// TestExecWithoutWatchRetries: a transaction without WATCH whose read
// conflicts with a write committed between it and its commit is run again,
// not answered null: Redis never answers null to such an EXEC (nothing is
// watched), and its client saw nothing of the state it ran on. Before, EXEC
// answered null at its first conflict: 8 clients running MULTI, INCR, EXEC
// on one key saw some of their EXECs answer null, on memkv and more on Redis
// shards (measured at the commit that changed it; the output was not kept).
func TestExecWithoutWatchRetries(t *testing.T) {
	ctx := context.Background()
	t.Run("memkv", func(t *testing.T) {
		in := startGateway(t, Config{HTTPAddr: "-"})
		const k = "{m}n"
		st := mustMemkv(t, in.gw.backend).stores[in.gw.shard(k)]
		var writes atomic.Int64
		var always atomic.Bool
		cfg := st.Config()
		cfg.Faults.FailBeforeCommit = func(req *memkv.CommitRequest) bool {
			// Another client's write of k lands between the transaction's
			// read of k and its commit (once, or at every attempt).
			if len(req.ReadKeys) > 0 && (always.Load() || writes.Load() == 0) {
				writes.Add(1)
				_, err := st.Put(ctx, []byte(k), encodeValue([]byte("10"), 0))
				assert.NoError(t, err)
			}
			return false
		}
		require.NoError(t, st.SetConfig(cfg))
		c := client(t, in, nil)
		cmds, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error { p.Incr(ctx, k); return nil })
		require.NoError(t, err, "EXEC without WATCH")
		assert.Equal(t, int64(11), cmds[0].(*redis.IntCmd).Val())
		assert.Equal(t, "11", c.Get(ctx, k).Val())

		// A conflict at every attempt: EXEC gives up after execAttempts.
		always.Store(true)
		writes.Store(0)
		_, err = c.TxPipelined(ctx, func(p redis.Pipeliner) error { p.Incr(ctx, k); return nil })
		require.ErrorIs(t, err, redis.TxFailedErr)
		assert.Equal(t, int64(execAttempts), writes.Load())
		assert.Equal(t, "10", c.Get(ctx, k).Val())
	})
	t.Run("redis", func(t *testing.T) {
		in, shards := redisGateway(t, 1, 4)
		const k = "{r}n"
		direct := redis.NewClient(&redis.Options{Addr: shards[0].addr, MaxRetries: -1})
		t.Cleanup(func() { _ = direct.Close() })
		r, ok := asRedis(in.gw.backend)
		require.True(t, ok)
		var once sync.Once
		r.shards[0].AddHook(afterRead{key: k, fn: func() {
			once.Do(func() { assert.NoError(t, direct.Set(ctx, k, "10", 0).Err()) })
		}})
		c := client(t, in, nil)
		cmds, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error { p.Incr(ctx, k); return nil })
		require.NoError(t, err, "EXEC without WATCH")
		assert.Equal(t, int64(11), cmds[0].(*redis.IntCmd).Val())
		assert.Equal(t, "11", direct.Get(ctx, k).Val())
	})
}
