package main

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReplicaHungFallsBackToPrimary: a replica that hangs (its connections
// open, its replies never coming, as a stopped or overloaded host's) must not
// take the whole request timeout of the reads routed to it: they fall back to
// the primary, which answers, and the shard is not marked down. Before, the
// replica's read ran until the request's deadline, and the primary was asked
// with no time left: every read of the shard failed.
func TestReplicaHungFallsBackToPrimary(t *testing.T) {
	eachClient(t, func(t *testing.T, kind string) {
		primary := startRedis(t)
		replica := startRedis(t) // stands for a replica: the test reads it only while it hangs
		const timeout = 800 * time.Millisecond
		in := startGateway(t, Config{Backend: BackendConfig{Kind: "redis", Redis: []string{primary.addr},
			Replicas: [][]string{{replica.addr}}, Pool: 1, Client: kind}, RequestTimeout: Duration(timeout)})
		ctx := context.Background()
		c := client(t, in, nil)
		require.NoError(t, c.Set(ctx, "rk", "v", 0).Err())
		c.Get(ctx, "rk") // the replica's connection is open (the key is not there)

		p := replica.cmd.Process
		require.NoError(t, p.Signal(syscall.SIGSTOP))
		t.Cleanup(func() { _ = p.Signal(syscall.SIGCONT) })
		for range 2 {
			start := time.Now()
			v, err := c.Get(ctx, "rk").Result()
			require.NoError(t, err, "the primary answers while the replica hangs")
			assert.Equal(t, "v", v)
			assert.Less(t, time.Since(start), timeout)
		}
		assert.False(t, in.gw.health[0].down.Load(), "the shard is not marked down")
	})
}
