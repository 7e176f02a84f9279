package main

import (
	"context"
	"log/slog"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestShardStaysDownWhileOnlyItsReplicaAnswers: a shard whose primary hangs
// is down from its first failed write until the primary answers; a read
// batch its replica answers meanwhile says nothing of the primary. Before,
// that read marked the shard up (gateway_backend_shard_up 1, INFO up=1, a
// "backend shard answers again" line) while every write still failed, and
// the shard's series flapped with the mix of reads and writes.
func TestShardStaysDownWhileOnlyItsReplicaAnswers(t *testing.T) {
	eachClient(t, func(t *testing.T, kind string) {
		primary := startRedis(t, "--repl-diskless-sync-delay", "0")
		host, port, _ := strings.Cut(primary.addr, ":")
		replica := startRedis(t, "--replicaof", host, port)
		var logs syncBuffer
		in := startGatewayLog(t, Config{Backend: BackendConfig{Kind: "redis", Redis: []string{primary.addr},
			Replicas: [][]string{{replica.addr}}, Pool: 1, Client: kind}, RequestTimeout: Duration(300 * time.Millisecond)},
			slog.New(slog.NewJSONHandler(&logs, nil)))
		ctx := context.Background()
		c := client(t, in, nil)
		require.NoError(t, c.Set(ctx, "rk", "v", 0).Err())
		rc := redis.NewClient(&redis.Options{Addr: replica.addr, MaxRetries: -1})
		defer rc.Close()
		eventually(t, "the key did not reach the replica", func() bool { return rc.Get(ctx, "rk").Val() == "v" })
		require.Equal(t, "v", c.Get(ctx, "rk").Val()) // read on the replica: its connection is open

		up := func() float64 {
			m := series(t, in.gw, "gateway_backend_shard_up", map[string]string{"shard": "0"})
			require.NotNil(t, m, "gateway_backend_shard_up")
			return m.GetGauge().GetValue()
		}
		require.Equal(t, 1.0, up())
		p := primary.cmd.Process
		require.NoError(t, p.Signal(syscall.SIGSTOP))
		t.Cleanup(func() { _ = p.Signal(syscall.SIGCONT) })
		require.Error(t, c.Set(ctx, "w", "1", 0).Err(), "a write to the hung primary fails")
		require.Equal(t, 0.0, up(), "the failed write marks the shard down")

		require.Equal(t, "v", c.Get(ctx, "rk").Val(), "the replica answers the read")
		assert.Equal(t, 0.0, up(), "a read the replica answered does not mark the shard up")
		assert.Contains(t, c.Info(ctx, "backend").Val(), "shard0:up=0,")
		assert.NotContains(t, logs.String(), "backend shard answers again")

		require.NoError(t, p.Signal(syscall.SIGCONT))
		require.NoError(t, c.Set(ctx, "w", "2", 0).Err())
		assert.Equal(t, 1.0, up(), "the primary's answer marks the shard up")
	})
}
