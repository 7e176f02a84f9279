package main

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// keysOn returns a key of each of the gateway's n shards.
func keysOn(in *instance, n int) map[int]string {
	keyOn := map[int]string{}
	for i := 0; len(keyOn) < n; i++ {
		k := fmt.Sprint("key", i)
		keyOn[in.gw.shard(k)] = k
	}
	return keyOn
}

// replicatedShard starts a primary with one replica, a gateway on them with
// the given backend client, and sets "rk" to "v" once the replica has it. It
// returns both servers, a client of the gateway and one of the replica.
func replicatedShard(t *testing.T, kind string) (primary, replica *redisServer, c, rc *redis.Client) {
	t.Helper()
	primary = startRedis(t, "--repl-diskless-sync-delay", "0")
	host, port, _ := strings.Cut(primary.addr, ":")
	replica = startRedis(t, "--replicaof", host, port)
	in := startGateway(t, Config{Backend: BackendConfig{Kind: "redis", Redis: []string{primary.addr},
		Replicas: [][]string{{replica.addr}}, Pool: 2, Client: kind}})
	ctx := context.Background()
	c = client(t, in, nil)
	require.NoError(t, c.Set(ctx, "rk", "v", 0).Err())
	rc = redis.NewClient(&redis.Options{Addr: replica.addr, MaxRetries: -1})
	t.Cleanup(func() { _ = rc.Close() })
	eventually(t, "the key did not reach the replica", func() bool { return rc.Get(ctx, "rk").Val() == "v" })
	return primary, replica, c, rc
}

// restart starts r's server again on its own port.
func restart(t *testing.T, r *redisServer, extra ...string) {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	require.NoError(t, err)
	port, err := strconv.Atoi(strings.TrimPrefix(r.addr, "127.0.0.1:"))
	require.NoError(t, err)
	r.start(t, bin, port, extra...)
}

// TestShardKilledMidPipeline: a pipeline over two shards, one of them
// killed, answers the live shard's commands and fails the dead one's with
// the shard's error, promptly; a command spanning both (MGET) fails whole
// with that error. Pipelines in flight when the shard is killed never fail a
// command of the live shard.
func TestShardKilledMidPipeline(t *testing.T) {
	eachClient(t, func(t *testing.T, kind string) {
		in, shards := redisGatewayWith(t, 2, 4, kind)
		ctx := context.Background()
		keyOn := keysOn(in, 2)
		live, dead := keyOn[0], keyOn[1]
		liveW := "w" // the background writes' key, on the live shard too
		for i := 0; in.gw.shard(liveW) != 0; i++ {
			liveW = fmt.Sprint("w", i)
		}
		c := client(t, in, nil)
		require.NoError(t, c.MSet(ctx, live, "v", dead, "d").Err())

		stop := make(chan struct{})
		var wg sync.WaitGroup
		errs := make(chan error, 4)
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				bg := client(t, in, nil)
				for {
					select {
					case <-stop:
						return
					default:
					}
					p := bg.Pipeline()
					g := p.Get(ctx, live)
					p.Get(ctx, dead)
					s := p.Set(ctx, liveW, "v", 0)
					_, _ = p.Exec(ctx)
					if g.Err() != nil || (g.Val() != "v" && g.Val() != "x") || s.Err() != nil {
						errs <- fmt.Errorf("live shard's commands: get %q %v, set %v", g.Val(), g.Err(), s.Err())
						return
					}
				}
			}()
		}
		shards[1].stop()
		start := time.Now()
		p := c.Pipeline()
		g1 := p.Get(ctx, live)
		g2 := p.Get(ctx, dead)
		mg := p.MGet(ctx, live, dead)
		s1 := p.Set(ctx, live, "x", 0)
		s2 := p.Set(ctx, dead, "y", 0)
		g3 := p.Get(ctx, live)
		_, _ = p.Exec(ctx)
		elapsed := time.Since(start)
		close(stop)
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		assert.NoError(t, g1.Err())
		assert.Equal(t, "v", g1.Val())
		assert.ErrorContains(t, g2.Err(), "backend shard 1")
		assert.ErrorContains(t, mg.Err(), "backend shard 1")
		t.Logf("GET: %v; MGET: %v", g2.Err(), mg.Err())
		assert.NoError(t, s1.Err())
		assert.ErrorContains(t, s2.Err(), "backend shard 1")
		assert.Equal(t, "x", g3.Val())
		assert.Less(t, elapsed, 1500*time.Millisecond, "the dead shard's commands fail within the dial timeout")
	})
}

// TestPrimaryKilledReplicaServesReads: with a shard's primary killed and its
// replica up, reads of its keys are answered by the replica and writes fail
// promptly; once the primary is back on its port, writes succeed again.
func TestPrimaryKilledReplicaServesReads(t *testing.T) {
	eachClient(t, func(t *testing.T, kind string) {
		primary, _, c, _ := replicatedShard(t, kind)
		ctx := context.Background()

		primary.stop()
		for range 5 {
			start := time.Now()
			v, err := c.Get(ctx, "rk").Result()
			require.NoError(t, err, "the replica answers the dead primary's reads")
			assert.Equal(t, "v", v)
			assert.Less(t, time.Since(start), 500*time.Millisecond)
		}
		vals, err := c.MGet(ctx, "rk", "none").Result()
		require.NoError(t, err)
		assert.Equal(t, []any{"v", nil}, vals)
		start := time.Now()
		require.ErrorContains(t, c.Set(ctx, "w", "1", 0).Err(), "backend shard 0")
		assert.Less(t, time.Since(start), 1500*time.Millisecond, "a write fails promptly")

		restart(t, primary)
		start = time.Now()
		// go-redis redials a shard whose dials failed once a second, so
		// writes come back within about that; 3 s leaves room on a busy host.
		eventuallyWithin(t, 3*time.Second, "writes did not recover", func() bool { return c.Set(ctx, "w", "2", 0).Err() == nil })
		t.Logf("writes recovered %v after the restart", time.Since(start))
	})
}

// TestReplicaKilledReadsMoveToPrimary: with a shard's replica killed, every
// read is answered by the primary, promptly; once the replica is back on its
// port, reads go to it again.
func TestReplicaKilledReadsMoveToPrimary(t *testing.T) {
	eachClient(t, func(t *testing.T, kind string) {
		primary, replica, c, rc := replicatedShard(t, kind)
		host, port, _ := strings.Cut(primary.addr, ":")
		ctx := context.Background()
		require.Equal(t, "v", c.Get(ctx, "rk").Val())

		replica.stop()
		for range 20 {
			start := time.Now()
			v, err := c.Get(ctx, "rk").Result()
			require.NoError(t, err, "the primary answers while the replica is down")
			assert.Equal(t, "v", v)
			assert.Less(t, time.Since(start), 600*time.Millisecond)
		}
		restart(t, replica, "--replicaof", host, port)
		eventually(t, "the replica did not sync", func() bool { return rc.Get(ctx, "rk").Val() == "v" })
		require.NoError(t, rc.ConfigResetStat(ctx).Err())
		start := time.Now()
		eventuallyWithin(t, 3*time.Second, "reads did not go back to the replica", func() bool {
			require.Equal(t, "v", c.Get(ctx, "rk").Val())
			return strings.HasPrefix(replica.info(t, "commandstats", "cmdstat_mget"), "calls=")
		})
		t.Logf("reads back on the replica %v after it synced", time.Since(start))
	})
}
