package main

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/internal/redisproc"
	"github.com/tierkit/tierkit/internal/leak"
)

// redisServer is a redis-server started by a test on a free loopback port.
type redisServer struct {
	addr   string
	user   string // the test's own clients of the server log in with these
	pass   string
	cmd    *exec.Cmd
	exited chan struct{} // closed once cmd exited and was reaped
}

// startRedis starts a throwaway redis-server (no persistence) on a free
// loopback port and stops it at cleanup. scripts/setup.sh installs
// redis-server; without it the test fails rather than skips, so CI notices.
//
// The port is free when it is picked but not reserved: another process may
// bind it, or take it as the local port of a connection, before the server
// does. The server then exits at start, and startRedis tries another port.
func startRedis(t testing.TB, extra ...string) *redisServer {
	t.Helper()
	return startRedisAs(t, "", "", extra...)
}

// startRedisAs is startRedis for a server whose extra arguments require a
// login (--requirepass, --user): its readiness checks and info log in as
// user with pass.
func startRedisAs(t testing.TB, user, pass string, extra ...string) *redisServer {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	require.NoError(t, err, "redis-server is needed: run scripts/setup.sh")
	p, err := redisproc.StartFree(bin, 5, user, pass, redisproc.Ping, extra...)
	require.NoError(t, err)
	r := &redisServer{addr: p.Addr, user: user, pass: pass, cmd: p.Cmd, exited: p.Exited}
	t.Cleanup(r.stop)
	return r
}

func (r *redisServer) start(t testing.TB, bin string, port int, extra ...string) {
	t.Helper()
	r.startUntil(t, bin, port, func(c *redis.Client) error { return c.Ping(context.Background()).Err() }, extra...)
}

// startUntil starts r's server on port and waits until ready answers
// without error (start: PING, which a server loading its dataset refuses).
// It fails the test if the server exits first (the port was taken) or does
// not get ready within redisproc's start timeout (5 s).
func (r *redisServer) startUntil(t testing.TB, bin string, port int, ready func(*redis.Client) error, extra ...string) {
	t.Helper()
	require.NoError(t, r.tryStart(bin, port, ready, extra...))
}

// tryStart starts r's server on port with redisproc.Start: ready answers
// without error and the server answering is r's own process, not another
// test's that took the port while r's exits. It returns an error if r's
// server exits or is not ready within redisproc's start timeout (5 s), and then leaves nothing
// running.
func (r *redisServer) tryStart(bin string, port int, ready func(*redis.Client) error, extra ...string) error {
	p, err := redisproc.Start(bin, port, r.user, r.pass, ready, extra...)
	if err != nil {
		r.cmd = nil
		return err
	}
	r.cmd, r.exited = p.Cmd, p.Exited
	return nil
}

func (r *redisServer) stop() {
	if r.cmd != nil && r.cmd.Process != nil {
		_ = r.cmd.Process.Kill()
		<-r.exited
		r.cmd = nil
	}
}

// info returns one field of the server's INFO.
func (r *redisServer) info(t testing.TB, section, field string) string {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: r.addr, Username: r.user, Password: r.pass, MaxRetries: -1})
	defer c.Close()
	s, err := c.Info(context.Background(), section).Result()
	require.NoError(t, err)
	for _, line := range strings.Split(s, "\r\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return v
		}
	}
	return ""
}

// redisClients are the data-path clients the Redis tests run with.
var redisClients = []string{"rueidis", "go-redis"}

// eachClient runs f once per data-path client, as a subtest.
func eachClient(t *testing.T, f func(t *testing.T, client string)) {
	for _, c := range redisClients {
		t.Run(c, func(t *testing.T) { f(t, c) })
	}
}

func redisGateway(t *testing.T, n, pool int) (*instance, []*redisServer) {
	return redisGatewayWith(t, n, pool, "")
}

// redisGatewayWith starts n shards and a gateway on them whose data path
// uses client ("" for the default).
func redisGatewayWith(t *testing.T, n, pool int, client string) (*instance, []*redisServer) {
	var shards []*redisServer
	var addrs []string
	for range n {
		r := startRedis(t)
		shards = append(shards, r)
		addrs = append(addrs, r.addr)
	}
	in := startGateway(t, Config{Backend: BackendConfig{Kind: "redis", Redis: addrs, Pool: pool, Client: client}})
	return in, shards
}

func TestRedisShardsCommands(t *testing.T) {
	eachClient(t, func(t *testing.T, kind string) {
		in, _ := redisGatewayWith(t, 2, 4, kind)
		ctx := context.Background()
		for _, proto := range []int{2, 3} {
			c := client(t, in, &redis.Options{Protocol: proto})
			p := fmt.Sprint("r", proto, ":")
			require.NoError(t, c.Set(ctx, p+"a", "1", 0).Err())
			require.Equal(t, "1", c.Get(ctx, p+"a").Val())
			require.ErrorIs(t, c.Get(ctx, p+"none").Err(), redis.Nil)
			ok, err := c.SetNX(ctx, p+"a", "2", 0).Result()
			require.NoError(t, err)
			assert.False(t, ok)
			require.NoError(t, c.Set(ctx, p+"ex", "1", time.Minute).Err())
			require.NoError(t, c.MSet(ctx, p+"x", "1", p+"y", "2", p+"z", "3").Err())
			vals, err := c.MGet(ctx, p+"x", p+"y", p+"none", p+"z").Result()
			require.NoError(t, err)
			assert.Equal(t, []any{"1", "2", nil, "3"}, vals)
			require.Equal(t, int64(6), c.IncrBy(ctx, p+"x", 5).Val())
			require.Equal(t, int64(1), c.Incr(ctx, p+"ctr").Val())
			// Every op kind and SET option reaches the shard as written.
			ok, err = c.SetXX(ctx, p+"none", "1", 0).Result()
			require.NoError(t, err)
			assert.False(t, ok, "XX on a missing key")
			ok, err = c.SetXX(ctx, p+"a", "3", 90500*time.Millisecond).Result()
			require.NoError(t, err)
			assert.True(t, ok)
			ok, err = c.SetNX(ctx, p+"nx", "1", time.Minute).Result()
			require.NoError(t, err)
			assert.True(t, ok)
			r, _ := asRedis(in.gw.backend)
			on := func(k string) *redis.Client { return r.shards[in.gw.shard(k)] } // the key's shard, directly
			pttl := on(p+"a").PTTL(ctx, p+"a").Val()
			assert.True(t, pttl > 80*time.Second && pttl <= 90500*time.Millisecond, "PX kept: %v", pttl)
			assert.Equal(t, time.Minute, on(p+"nx").TTL(ctx, p+"nx").Val().Round(time.Minute))
			assert.Equal(t, int64(2), c.Exists(ctx, p+"a", p+"nx", p+"none").Val())
			assert.Equal(t, int64(2), c.Del(ctx, p+"a", p+"nx", p+"none").Val())
			assert.Equal(t, int64(0), c.Exists(ctx, p+"a").Val())
			require.NoError(t, c.Set(ctx, p+"s", "abc", 0).Err())
			require.ErrorContains(t, c.Incr(ctx, p+"s").Err(), "not an integer")
		}
	})
}

func TestRedisShardDownFailsOnlyItsKeys(t *testing.T) {
	eachClient(t, func(t *testing.T, kind string) {
		in, shards := redisGatewayWith(t, 2, 4, kind)
		ctx := context.Background()
		c := client(t, in, nil)
		keyOn := map[int]string{}
		for i := 0; len(keyOn) < 2; i++ {
			k := fmt.Sprint("key", i)
			keyOn[in.gw.shard(k)] = k
		}
		for _, k := range keyOn {
			require.NoError(t, c.Set(ctx, k, "v", 0).Err())
		}
		bin, _ := exec.LookPath("redis-server")
		port, _ := strconv.Atoi(strings.TrimPrefix(shards[1].addr, "127.0.0.1:"))
		shards[1].stop()

		start := time.Now()
		require.ErrorContains(t, c.Get(ctx, keyOn[1]).Err(), "backend shard 1")
		assert.Less(t, time.Since(start), 3*time.Second, "fails promptly")
		require.Equal(t, "v", c.Get(ctx, keyOn[0]).Val(), "the other shard still serves")

		shards[1].start(t, bin, port) // comes back empty (no persistence)
		require.ErrorIs(t, c.Get(ctx, keyOn[1]).Err(), redis.Nil, "recovers when the shard returns")
		require.NoError(t, c.Set(ctx, keyOn[1], "w", 0).Err())
		// Every backend connection recovered, not only the one that served
		// these: 40 more reads and writes all succeed.
		for i := range 20 {
			require.NoError(t, c.Set(ctx, keyOn[1], fmt.Sprint(i), 0).Err())
			require.Equal(t, fmt.Sprint(i), c.Get(ctx, keyOn[1]).Val())
		}

		// A restart while the gateway is idle (no request meets the outage):
		// the first requests after it succeed too.
		port0, _ := strconv.Atoi(strings.TrimPrefix(shards[0].addr, "127.0.0.1:"))
		shards[0].stop()
		shards[0].start(t, bin, port0)
		for i := range 20 {
			require.NoError(t, c.Set(ctx, keyOn[0], fmt.Sprint(i), 0).Err())
			require.Equal(t, fmt.Sprint(i), c.Get(ctx, keyOn[0]).Val())
		}
	})
}

// TestRedisShardDownAtStart: a gateway whose shard is down when it starts
// still starts, fails that shard's keys promptly, serves them once the shard
// is up, and leaves no goroutine behind when it shuts down.
func TestRedisShardDownAtStart(t *testing.T) {
	eachClient(t, func(t *testing.T, kind string) {
		leak.Check(t)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		port := ln.Addr().(*net.TCPAddr).Port
		require.NoError(t, ln.Close()) // nothing listens there now
		addr := "127.0.0.1:" + strconv.Itoa(port)
		in := startGateway(t, Config{Backend: BackendConfig{Kind: "redis", Redis: []string{addr}, Pool: 2, Client: kind}})
		c := client(t, in, nil)
		ctx := context.Background()
		start := time.Now()
		require.ErrorContains(t, c.Get(ctx, "k").Err(), "backend shard 0")
		assert.Less(t, time.Since(start), 3*time.Second, "fails promptly")

		bin, err := exec.LookPath("redis-server")
		require.NoError(t, err)
		r := &redisServer{addr: addr}
		r.start(t, bin, port)
		t.Cleanup(r.stop)
		require.ErrorIs(t, c.Get(ctx, "k").Err(), redis.Nil)
		require.NoError(t, c.Set(ctx, "k", "v", 0).Err())
		require.Equal(t, "v", c.Get(ctx, "k").Val())
		require.NoError(t, c.Close())
		shut, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		require.NoError(t, in.Shutdown(shut))
	})
}

// TestRedisReplicasServeReads: batches of GETs go to the shard's replica,
// writes to its primary.
func TestRedisReplicasServeReads(t *testing.T) {
	eachClient(t, func(t *testing.T, kind string) {
		primary := startRedis(t, "--repl-diskless-sync-delay", "0") // the replica syncs at once
		host, port, _ := strings.Cut(primary.addr, ":")
		replica := startRedis(t, "--replicaof", host, port)
		eventually(t, "replica did not sync", func() bool { return replica.info(t, "replication", "master_link_status") == "up" })
		in := startGateway(t, Config{Backend: BackendConfig{Kind: "redis", Redis: []string{primary.addr},
			Replicas: [][]string{{replica.addr}}, Pool: 2, Client: kind}})
		ctx := context.Background()
		c := client(t, in, nil)
		require.NoError(t, c.Set(ctx, "rk", "v", 0).Err())
		rc := redis.NewClient(&redis.Options{Addr: replica.addr})
		defer rc.Close()
		eventually(t, "write did not replicate", func() bool { return rc.Get(ctx, "rk").Val() == "v" })
		for _, s := range []*redisServer{primary, replica} {
			sc := redis.NewClient(&redis.Options{Addr: s.addr})
			require.NoError(t, sc.ConfigResetStat(ctx).Err())
			sc.Close()
		}
		for range 10 {
			require.Equal(t, "v", c.Get(ctx, "rk").Val())
		}
		stat := func(s *redisServer, cmd string) string {
			v := s.info(t, "commandstats", "cmdstat_"+cmd)
			calls, _, _ := strings.Cut(strings.TrimPrefix(v, "calls="), ",")
			return calls
		}
		assert.Equal(t, "10", stat(replica, "mget"), "reads served by the replica")
		assert.Equal(t, "", stat(primary, "mget"), "no reads on the primary")
		require.NoError(t, c.Set(ctx, "rk", "w", 0).Err())
		assert.Equal(t, "1", stat(primary, "set"), "writes go to the primary")
	})
}

// TestRedisPlainSetsBecomeMSet: concurrent plain SETs that share a batch reach
// the shard as one MSET; every value lands, and a key set twice in a row by
// one connection keeps the later value.
func TestRedisPlainSetsBecomeMSet(t *testing.T) {
	eachClient(t, func(t *testing.T, kind string) {
		in, shards := redisGatewayWith(t, 2, 4, kind)
		ctx := context.Background()
		c := client(t, in, &redis.Options{PoolSize: 32})
		var wg sync.WaitGroup
		for w := range 32 {
			wg.Go(func() {
				_, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
					for i := range 16 {
						p.Set(ctx, fmt.Sprint("ms:", w, ":", i), i, 0)
					}
					p.Set(ctx, fmt.Sprint("ms:", w, ":last"), "first", 0)
					p.Set(ctx, fmt.Sprint("ms:", w, ":last"), "second", 0)
					return nil
				})
				assert.NoError(t, err)
			})
		}
		wg.Wait()
		for w := range 32 {
			for i := range 16 {
				require.Equal(t, fmt.Sprint(i), c.Get(ctx, fmt.Sprint("ms:", w, ":", i)).Val())
			}
			require.Equal(t, "second", c.Get(ctx, fmt.Sprint("ms:", w, ":last")).Val())
		}
		msets := 0
		for _, s := range shards {
			if v := s.info(t, "commandstats", "cmdstat_mset"); v != "" {
				msets++
			}
		}
		assert.Positive(t, msets, "batches of plain SETs were sent as MSET")
	})
}

// TestRedisPoolOfOne: with a pool of 1, the data path reaches the shard over
// one connection, not rueidis's default multiplex (up to 4 connections by
// the number of CPUs), which a multiplex of 0 would ask for.
func TestRedisPoolOfOne(t *testing.T) {
	eachClient(t, func(t *testing.T, kind string) {
		in, shards := redisGatewayWith(t, 1, 1, kind)
		ctx := context.Background()
		var wg sync.WaitGroup
		for w := range 20 {
			wg.Go(func() {
				c := redis.NewClient(&redis.Options{Addr: in.Addr(), MaxRetries: -1, PoolSize: 1})
				defer c.Close()
				for i := range 20 {
					k := fmt.Sprint("c", w, ":", i)
					assert.NoError(t, c.Set(ctx, k, "v", 0).Err())
					assert.Equal(t, "v", c.Get(ctx, k).Val())
				}
			})
		}
		wg.Wait()
		assert.LessOrEqual(t, gatewayConns(t, shards[0]), 1)
	})
}

// gatewayConns counts the gateway's connections to shard s (by their name).
func gatewayConns(t *testing.T, s *redisServer) int {
	t.Helper()
	direct := redis.NewClient(&redis.Options{Addr: s.addr, MaxRetries: -1})
	defer direct.Close()
	list, err := direct.ClientList(context.Background()).Result()
	require.NoError(t, err)
	t.Logf("clients of %s:\n%s", s.addr, list)
	return strings.Count(list, "name=tierkit-gateway ")
}

// TestRedisLargeBatchKeepsPool: a batch of more than 2,000 ops (an EXISTS
// of 3,000 keys on the one shard, which goes as one pipeline of a command
// per op) still travels over the shard's pool: rueidis sends a pipeline
// that long over a dedicated connection of its own, one more than the pool
// allows. One command makes the batch: three of 1,000 keys gathered by a
// linger did not always meet in its window on a loaded machine.
func TestRedisLargeBatchKeepsPool(t *testing.T) {
	eachClient(t, func(t *testing.T, kind string) {
		shard := startRedis(t)
		in := startGateway(t, Config{Backend: BackendConfig{Kind: "redis", Redis: []string{shard.addr}, Pool: 1, Client: kind},
			Limits: Limits{MaxArgs: 4000}})
		keys := make([]string, 3000)
		for i := range keys {
			keys[i] = fmt.Sprint("k", i)
		}
		c := client(t, in, nil)
		for range 3 {
			require.NoError(t, c.Exists(context.Background(), keys...).Err())
		}
		assert.Greater(t, in.gw.n.backendOps.Load()/in.gw.n.backendCalls.Load(), uint64(2000), "batches of more than 2,000 ops")
		assert.LessOrEqual(t, gatewayConns(t, shard), 1)
	})
}
