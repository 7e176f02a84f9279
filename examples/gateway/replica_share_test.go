package main

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHungPrimaryWritesLeaveReplicaReads: a shard whose primary hangs while
// clients keep writing to it holds its share of max_in_flight with those
// writes until the timeout cuts them; its read batches, which its replica
// answers, must not be refused for that share. Before, once the hung writes
// filled the share, every GET of the shard answered -OVERLOADED while its
// replica was up, for as long as the primary hung.
func TestHungPrimaryWritesLeaveReplicaReads(t *testing.T) {
	eachClient(t, func(t *testing.T, kind string) {
		primary := startRedis(t, "--repl-diskless-sync-delay", "0")
		host, port, _ := strings.Cut(primary.addr, ":")
		replica := startRedis(t, "--replicaof", host, port)
		other := startRedis(t)
		const inflight = 6 // two shards, one with a replica: three shares of 2
		in := startGateway(t, Config{Backend: BackendConfig{Kind: "redis", Redis: []string{primary.addr, other.addr},
			Replicas: [][]string{{replica.addr}}, Pool: 2, Client: kind},
			MaxInFlight: inflight, MaxBatch: 1, RequestTimeout: Duration(2 * time.Second)})
		g := in.gw
		ctx := context.Background()
		var k0 []string
		for i := 0; len(k0) < 5; i++ {
			if k := "key" + string(rune('a'+i%26)) + strings.Repeat("x", i/26); g.shard(k) == 0 {
				k0 = append(k0, k)
			}
		}
		c := client(t, in, nil)
		require.NoError(t, c.Set(ctx, k0[0], "v", 0).Err())
		rc := redis.NewClient(&redis.Options{Addr: replica.addr, MaxRetries: -1})
		defer rc.Close()
		eventually(t, "the key did not reach the replica", func() bool { return rc.Get(ctx, k0[0]).Val() == "v" })
		require.Equal(t, "v", c.Get(ctx, k0[0]).Val()) // the replica's connection is open

		p := primary.cmd.Process
		require.NoError(t, p.Signal(syscall.SIGSTOP))
		t.Cleanup(func() { _ = p.Signal(syscall.SIGCONT) })
		// Writes that hang on the primary, more than the shard's share: they hold it.
		for _, k := range k0[1:] {
			wc := client(t, in, &redis.Options{ReadTimeout: -1})
			go func() { _ = wc.Set(ctx, k, "w", 0).Err() }()
		}
		eventuallyWithin(t, time.Second, "the hung writes did not take the shard's share",
			func() bool { return g.shardFlights[0].Load() >= g.shardShare.Load() })

		v, err := c.Get(ctx, k0[0]).Result()
		require.NoError(t, err, "the replica answers the shard's reads while its primary's writes hang")
		assert.Equal(t, "v", v)
		vals, err := c.MGet(ctx, k0[0], k0[1]).Result()
		require.NoError(t, err)
		assert.Equal(t, []any{"v", nil}, vals)
	})
}
