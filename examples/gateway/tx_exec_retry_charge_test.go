package main

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
)

// TestMemkvExecRetryChargedOnce: on memkv an EXEC without WATCH is charged
// one backend call (README, quota), however many times a conflict with
// another client's write makes the gateway run it again: the runs after the
// first are the gateway's recovery, not work the tenant asked for, as a
// batch of GETs read again from the primary is charged once. Each run was
// charged a call: up to execAttempts (16) for one EXEC.
func TestMemkvExecRetryChargedOnce(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-", Tenants: []TenantConfig{{Name: "default", QuotaRate: 0.001, QuotaBurst: 100}}})
	g := in.gw
	ctx := context.Background()
	const k = "{m}n"
	st := mustMemkv(t, g.backend).stores[g.shard(k)]
	var writes, conflicts atomic.Int64
	cfg := st.Config()
	cfg.Faults.FailBeforeCommit = func(req *memkv.CommitRequest) bool {
		// Another client's write of k lands between the transaction's read
		// of k and its commit, at the first conflicts runs.
		if len(req.ReadKeys) > 0 && writes.Load() < conflicts.Load() {
			writes.Add(1)
			_, err := st.Put(ctx, []byte(k), encodeValue([]byte("10"), 0))
			assert.NoError(t, err)
		}
		return false
	}
	require.NoError(t, st.SetConfig(cfg))
	c := client(t, in, nil)
	ten := g.tenants["default"]
	incr := func(p redis.Pipeliner) error { p.Incr(ctx, k); return nil }

	for _, n := range []int64{0, 3, execAttempts} {
		writes.Store(0)
		conflicts.Store(n)
		calls, tcalls := g.n.backendCalls.Load(), ten.backendCalls.Load()
		_, _, tokens := ten.quota.get(time.Now())
		_, err := c.TxPipelined(ctx, incr)
		if n < execAttempts {
			require.NoError(t, err, "EXEC after %d conflicts", n)
		} else {
			require.ErrorIs(t, err, redis.TxFailedErr)
		}
		require.Equal(t, n, writes.Load())
		assert.Equal(t, uint64(1), g.n.backendCalls.Load()-calls, "%d conflicts: one backend call", n)
		assert.Equal(t, uint64(1), ten.backendCalls.Load()-tcalls, "%d conflicts: the tenant's", n)
		_, _, after := ten.quota.get(time.Now())
		assert.InDelta(t, 1, tokens-after, 0.01, "%d conflicts: charged one call", n)
	}
}
