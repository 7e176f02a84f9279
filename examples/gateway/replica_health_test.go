package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReplicaOutageShownAndSkipped: a replica that hangs (SIGSTOP) is
// marked down by the first read that waits on it: the reads after it skip
// it and go to the primary, but for one per replicaRetry that tries it
// again; gateway_backend_replica_up and INFO show it down, and the outage is
// logged once. Once it answers (SIGCONT) the read that tries it marks it up.
// Before, nothing showed a failing replica, and every read routed to it
// waited its half of the request timeout for as long as it hung.
func TestReplicaOutageShownAndSkipped(t *testing.T) {
	eachClient(t, func(t *testing.T, kind string) {
		primary := startRedis(t, "--repl-diskless-sync-delay", "0") // the replica syncs at once
		host, port, _ := strings.Cut(primary.addr, ":")
		replica := startRedis(t, "--replicaof", host, port)
		var logs syncBuffer
		in := startGatewayLog(t, Config{Backend: BackendConfig{Kind: "redis", Redis: []string{primary.addr},
			Replicas: [][]string{{replica.addr}}, Pool: 1, Client: kind}, RequestTimeout: Duration(time.Second)},
			slog.New(slog.NewJSONHandler(&logs, nil)))
		ctx := context.Background()
		c := client(t, in, nil)
		require.NoError(t, c.Set(ctx, "rk", "v", 0).Err())
		rc := redis.NewClient(&redis.Options{Addr: replica.addr, MaxRetries: -1})
		defer rc.Close()
		eventually(t, "the key did not reach the replica", func() bool { return rc.Get(ctx, "rk").Val() == "v" })
		require.Equal(t, "v", c.Get(ctx, "rk").Val()) // read on the replica: its connection is open

		labels := map[string]string{"shard": "0", "replica": "0", "addr": replica.addr}
		up := func() float64 {
			m := series(t, in.gw, "gateway_backend_replica_up", labels)
			require.NotNil(t, m, "gateway_backend_replica_up")
			return m.GetGauge().GetValue()
		}
		failed := func() float64 {
			m := series(t, in.gw, "gateway_backend_replica_failed_batches_total", labels)
			require.NotNil(t, m, "gateway_backend_replica_failed_batches_total")
			return m.GetCounter().GetValue()
		}
		assert.Equal(t, 1.0, up())
		assert.Contains(t, c.Info(ctx, "backend").Val(), "shard0_replica0:addr="+replica.addr+",up=1,failed_batches=0\r\n")

		p := replica.cmd.Process
		require.NoError(t, p.Signal(syscall.SIGSTOP))
		t.Cleanup(func() { _ = p.Signal(syscall.SIGCONT) })
		const reads = 10
		start := time.Now()
		for range reads {
			v, err := c.Get(ctx, "rk").Result()
			require.NoError(t, err, "the primary answers while the replica hangs")
			require.Equal(t, "v", v)
		}
		elapsed := time.Since(start)
		// Each read that went to the hung replica waited on it and failed
		// there: the first, and at most one per replicaRetry after it.
		waited := failed()
		assert.GreaterOrEqual(t, waited, 1.0)
		assert.LessOrEqual(t, waited, float64(1+elapsed/replicaRetry), "reads that waited on the hung replica in %v", elapsed)
		assert.Equal(t, 0.0, up())
		assert.Regexp(t, fmt.Sprintf(`shard0_replica0:addr=%s,up=0,failed_batches=%d,down_since_ms=[0-9]+\r\n`, replica.addr, int(waited)),
			c.Info(ctx, "backend").Val())
		assert.False(t, in.gw.health[0].down.Load(), "the shard is not marked down")

		require.NoError(t, p.Signal(syscall.SIGCONT))
		r := mustRedis(t, in.gw.backend).dataReplicas[0][0]
		for i := 0; up() == 0; i++ {
			require.Less(t, i, 5, "the replica was not found back")
			r.retry.Store(0) // the retry is due
			require.Equal(t, "v", c.Get(ctx, "rk").Val())
		}
		count := map[string]int{}
		for _, l := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
			var m map[string]any
			require.NoError(t, json.Unmarshal([]byte(l), &m), l)
			if m["replica"] == 0.0 {
				count[fmt.Sprint(m["level"], " ", m["msg"])]++
			}
		}
		assert.Equal(t, map[string]int{
			"WARN backend replica unreachable: its shard's reads skip it until it answers": 1,
			"INFO backend replica answers again":                                           1,
		}, count)
	})
}

// TestPickReplica: reads skip a replica that is down, to the next one up
// round robin, or none (the primary) when all are down; once a down
// replica's retry is due, one read takes it and the others skip it until
// the next retry.
func TestPickReplica(t *testing.T) {
	b := &redisBackend{dataReplicas: [][]*replica{{{index: 0}, {index: 1}}}, next: make([]atomic.Uint32, 1), log: discardLogger}
	reps := b.dataReplicas[0]
	t0 := time.Unix(1000, 0)
	picked := func(now time.Time) int {
		if r := b.pickReplica(0, now); r != nil {
			return r.index
		}
		return -1
	}
	assert.Equal(t, []int{1, 0, 1, 0}, []int{picked(t0), picked(t0), picked(t0), picked(t0)}, "round robin")
	down := errors.New("down")
	reps[0].failed(context.Background(), down, t0, discardLogger)
	assert.Equal(t, []int{1, 1, 1}, []int{picked(t0), picked(t0), picked(t0)}, "replica 0 skipped")
	reps[1].failed(context.Background(), down, t0, discardLogger)
	assert.Equal(t, -1, picked(t0.Add(replicaRetry/2)), "all down: the primary")
	at := t0.Add(replicaRetry)
	assert.Equal(t, []int{1, 0, -1, -1}, []int{picked(at), picked(at), picked(at), picked(at)}, "one read tries each, when due")
	reps[1].answered(discardLogger)
	assert.Equal(t, []int{1, 1}, []int{picked(at), picked(at)}, "replica 1 back; replica 0 waits for its next retry")
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	reps[1].failed(canceled, context.Canceled, at, discardLogger)
	assert.Equal(t, 1, picked(at), "a read whose batch ended is not the replica's failure")
}

// mustRedis returns the Redis backend under b.
func mustRedis(t testing.TB, b Backend) *redisBackend {
	t.Helper()
	r, ok := asRedis(b)
	require.True(t, ok, "backend is not redis")
	return r
}
