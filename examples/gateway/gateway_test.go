package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/batcher"
	"github.com/tierkit/tierkit/internal/leak"
)

// startGateway serves cfg on free loopback ports and shuts it down at cleanup.
func startGateway(t testing.TB, cfg Config) *instance {
	t.Helper()
	return startGatewayLog(t, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
}

// startGatewayLog is startGateway with the gateway's logger.
func startGatewayLog(t testing.TB, cfg Config, log *slog.Logger) *instance {
	t.Helper()
	cfg.Addr = "127.0.0.1:0"
	if cfg.HTTPAddr == "" {
		cfg.HTTPAddr = "127.0.0.1:0"
	}
	in, err := start(cfg, log)
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = in.Shutdown(ctx) // idempotent after a test's own Shutdown
	})
	return in
}

// setMemkvClock sets the memkv backend under b to read its time from the
// returned clock (unix ns), at at: tests move it instead of sleeping.
func setMemkvClock(t testing.TB, b Backend, at time.Time) (*memkvBackend, *atomic.Int64) {
	t.Helper()
	m := mustMemkv(t, b)
	var clock atomic.Int64
	clock.Store(at.UnixNano())
	m.now = func() time.Time { return time.Unix(0, clock.Load()) }
	return m, &clock
}

// mustMemkv returns the memkv backend under b (through the chaos wrapper).
func mustMemkv(t testing.TB, b Backend) *memkvBackend {
	t.Helper()
	m, ok := asMemkv(b)
	require.True(t, ok, "backend is not memkv")
	return m
}

func client(t testing.TB, in *instance, opt *redis.Options) *redis.Client {
	t.Helper()
	if opt == nil {
		opt = &redis.Options{}
	}
	opt.Addr = in.Addr()
	opt.MaxRetries = -1
	c := redis.NewClient(opt)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func TestCommandsRESP2AndRESP3(t *testing.T) {
	leak.Check(t)
	in := startGateway(t, Config{})
	ctx := context.Background()
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprint("resp", proto), func(t *testing.T) {
			c := client(t, in, &redis.Options{Protocol: proto, ClientName: "test"})
			p := fmt.Sprint("p", proto, ":")
			require.Equal(t, "PONG", c.Ping(ctx).Val())
			require.Equal(t, "hi", c.Echo(ctx, "hi").Val())
			require.NoError(t, c.Set(ctx, p+"a", "1", 0).Err())
			require.Equal(t, "1", c.Get(ctx, p+"a").Val())
			require.ErrorIs(t, c.Get(ctx, p+"missing").Err(), redis.Nil)

			ok, err := c.SetNX(ctx, p+"a", "2", 0).Result()
			require.NoError(t, err)
			assert.False(t, ok, "NX on a present key")
			ok, err = c.SetXX(ctx, p+"b", "2", 0).Result()
			require.NoError(t, err)
			assert.False(t, ok, "XX on an absent key")
			ok, err = c.SetXX(ctx, p+"a", "3", 0).Result()
			require.NoError(t, err)
			assert.True(t, ok)

			require.NoError(t, c.Set(ctx, p+"ttl", "x", 50*time.Millisecond).Err()) // PX
			require.NoError(t, c.Set(ctx, p+"ttl2", "x", 2*time.Second).Err())      // EX
			require.Equal(t, int64(2), c.Exists(ctx, p+"ttl", p+"ttl2", p+"nope").Val())

			require.NoError(t, c.MSet(ctx, p+"m1", "v1", p+"m2", "v2").Err())
			vals, err := c.MGet(ctx, p+"m1", p+"nope", p+"m2").Result()
			require.NoError(t, err)
			assert.Equal(t, []any{"v1", nil, "v2"}, vals)

			require.Equal(t, int64(1), c.Incr(ctx, p+"n").Val())
			require.Equal(t, int64(11), c.IncrBy(ctx, p+"n", 10).Val())
			require.Equal(t, int64(10), c.Decr(ctx, p+"n").Val())
			require.Error(t, c.Incr(ctx, p+"m1").Err(), "INCR of a non-integer")

			require.Equal(t, int64(2), c.Del(ctx, p+"m1", p+"m2", p+"nope").Val())
			require.ErrorIs(t, c.Get(ctx, p+"m1").Err(), redis.Nil)

			cfg, err := c.ConfigGet(ctx, "save").Result()
			require.NoError(t, err)
			assert.Contains(t, cfg, "save")
			info, err := c.Info(ctx).Result()
			require.NoError(t, err)
			assert.Contains(t, info, "redis_version:")
			assert.Contains(t, info, "backend_calls:")
			assert.Contains(t, info, "# Backend\r\nshard0:up=1,failed_batches=0\r\n")
			require.Equal(t, "test", c.ClientGetName(ctx).Val())
			require.NoError(t, c.Do(ctx, "SELECT", "0").Err())
			require.ErrorContains(t, c.Do(ctx, "SELECT", "1").Err(), "out of range")
			require.ErrorContains(t, c.Do(ctx, "FLUSHALL").Err(), "unknown command")
			require.ErrorContains(t, c.Do(ctx, "GET").Err(), "wrong number of arguments")
			require.Equal(t, "PONG", c.Ping(ctx).Val(), "the connection survives errors")
		})
	}
}

func TestTTLExpires(t *testing.T) {
	in := startGateway(t, Config{})
	be := mustMemkv(t, in.gw.backend)
	now := time.Now()
	be.now = func() time.Time { return now }
	c := client(t, in, nil)
	ctx := context.Background()
	require.NoError(t, c.Set(ctx, "t", "v", 2*time.Second).Err())
	require.Equal(t, "v", c.Get(ctx, "t").Val())
	now = now.Add(3 * time.Second)
	require.ErrorIs(t, c.Get(ctx, "t").Err(), redis.Nil)
	require.Equal(t, int64(1), c.Incr(ctx, "t").Val(), "an expired key counts as absent")
}

func TestPipelineOrder(t *testing.T) {
	in := startGateway(t, Config{})
	c := client(t, in, nil)
	ctx := context.Background()
	cmds, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, "po", "1", 0)
		p.Get(ctx, "po")
		p.Incr(ctx, "po")
		p.Get(ctx, "po")
		p.Get(ctx, "other")
		p.Del(ctx, "po")
		p.Exists(ctx, "po")
		p.Ping(ctx)
		return nil
	})
	require.ErrorIs(t, err, redis.Nil) // GET other
	got := make([]string, len(cmds))
	for i, c := range cmds {
		got[i] = strings.TrimPrefix(c.String(), c.Name()+" ")
	}
	assert.Equal(t, []string{"po 1: OK", "po: 1", "po: 2", "po: 2", "other: redis: nil", "po: 1", "po: 0", "ping: PONG"}, got)
}

// TestPipelinePlainRun: a pipeline of plain GETs, SETs and MGETs runs as one batch
// item per shard: every reply is right (identical GETs included), writes
// before reads of the same key are seen, and it takes at most one backend
// call per shard and run.
func TestPipelinePlainRun(t *testing.T) {
	in := startGateway(t, Config{})
	c := client(t, in, &redis.Options{PoolSize: 1}) // one connection
	ctx := context.Background()
	keys := []string{"pa", "pb", "pc", "pd", "pe", "pf", "pg", "ph"}
	_, err0 := c.Pipelined(ctx, func(p redis.Pipeliner) error { p.Ping(ctx); return nil }) // the client's set-up commands go first
	require.NoError(t, err0)
	before, commands := in.gw.n.backendCalls.Load(), in.gw.n.commands.Load()
	cmds, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, k := range keys { // one run of SETs
			p.Set(ctx, k, i, 0)
		}
		for _, k := range keys { // a new run: reads after writes of the same keys
			p.Get(ctx, k)
			p.Get(ctx, k) // identical GETs share an op
		}
		p.Get(ctx, "pnone")
		p.MGet(ctx, "pa", "pnone", "ph", "pa")
		return nil
	})
	require.ErrorIs(t, err, redis.Nil) // GET pnone
	assert.Equal(t, []any{"0", nil, "7", "0"}, cmds[len(cmds)-1].(*redis.SliceCmd).Val())
	for i, k := range keys {
		require.Equal(t, "OK", cmds[i].(*redis.StatusCmd).Val())
		for r := range 2 {
			require.Equal(t, fmt.Sprint(i), cmds[len(keys)+2*i+r].(*redis.StringCmd).Val(), k)
		}
	}
	calls := in.gw.n.backendCalls.Load() - before
	assert.LessOrEqual(t, calls, uint64(2*in.gw.backend.Shards()), "one backend call per shard and run")
	assert.Equal(t, uint64(len(cmds)), in.gw.n.commands.Load()-commands, "every command counted")
}

func TestAuthAndACL(t *testing.T) {
	in := startGateway(t, Config{Tenants: []TenantConfig{
		{Name: "shop", Password: "s3cret", KeyPrefixes: []string{"shop:"}},
		{Name: "ro", Password: "ro", Commands: []string{"get", "mget", "exists"}},
	}})
	ctx := context.Background()
	anon := client(t, in, &redis.Options{Protocol: 2})
	require.ErrorContains(t, anon.Get(ctx, "x").Err(), "NOAUTH")
	require.ErrorContains(t, anon.Ping(ctx).Err(), "NOAUTH", "as Redis answers it before AUTH")
	require.ErrorContains(t, anon.Do(ctx, "AUTH", "shop", "wrong").Err(), "WRONGPASS")

	shop := client(t, in, &redis.Options{Username: "shop", Password: "s3cret"})
	require.NoError(t, shop.Set(ctx, "shop:1", "a", 0).Err())
	require.ErrorContains(t, shop.Set(ctx, "bank:1", "a", 0).Err(), "NOPERM")
	require.ErrorContains(t, shop.MGet(ctx, "shop:1", "bank:1").Err(), "NOPERM")

	ro := client(t, in, &redis.Options{Username: "ro", Password: "ro", Protocol: 2})
	require.Equal(t, "a", ro.Get(ctx, "shop:1").Val())
	require.ErrorContains(t, ro.Set(ctx, "x", "1", 0).Err(), "NOPERM")
	info := ro.Info(ctx, "tenants").Val()
	assert.Contains(t, info, "tenant_ro:requests=1")
	assert.Contains(t, info, "denied=1")
}

func TestQuotaThrottles(t *testing.T) {
	in := startGateway(t, Config{Tenants: []TenantConfig{{Name: "default", QuotaRate: 0.001, QuotaBurst: 3}}})
	c := client(t, in, nil)
	ctx := context.Background()
	var throttled int
	for i := range 10 {
		if err := c.Set(ctx, fmt.Sprint("q", i), "v", 0).Err(); err != nil {
			require.ErrorContains(t, err, "THROTTLED")
			throttled++
		}
	}
	assert.Equal(t, 7, throttled, "3 backend calls allowed, then throttled")
}

// TestBatchingAndCoalescing sends concurrent GETs from many connections: the
// batcher (linger policy: memkv answers in microseconds, so natural batching
// would find little in flight to gather behind) turns them into few backend
// calls, and a hot key is fetched about once per burst.
func TestBatchingAndCoalescing(t *testing.T) {
	in := startGateway(t, Config{Linger: Duration(2 * time.Millisecond), BatchPolicy: "linger"})
	ctx := context.Background()
	c := client(t, in, &redis.Options{PoolSize: 64})
	for i := range 100 {
		require.NoError(t, c.Set(ctx, fmt.Sprint("k", i), i, 0).Err())
	}
	before := in.gw.n.backendCalls.Load()
	const clients, per = 50, 40
	var wg sync.WaitGroup
	for w := range clients {
		wg.Go(func() {
			for i := range per {
				key := "hot"
				if i%2 == 1 {
					key = fmt.Sprint("k", (w*per+i)%100)
				}
				err := c.Get(ctx, key).Err()
				if key == "hot" {
					assert.ErrorIs(t, err, redis.Nil)
				} else {
					assert.NoError(t, err)
				}
			}
		})
	}
	wg.Wait()
	calls := in.gw.n.backendCalls.Load() - before
	perReq := float64(calls) / float64(clients*per)
	t.Logf("%d GETs from %d connections -> %d backend calls (%.3f per request); coalesce joins %d, batch dedup %d",
		clients*per, clients, calls, perReq, in.gw.flights.Stats().Joins, in.gw.batches.Stats().Deduped)
	assert.Less(t, perReq, 0.5, "batching and coalescing cut backend calls")
}

// TestNaturalBatchingPaysNoLinger: one connection, commands one after the
// other, a 50 ms linger. With natural batching (the default) no command waits
// for the window; with the linger policy each would wait all of it, so 20
// commands would take at least a second.
func TestNaturalBatchingPaysNoLinger(t *testing.T) {
	const linger, n = 50 * time.Millisecond, 20
	in := startGateway(t, Config{Linger: Duration(linger)})
	require.Equal(t, batcher.FlushNatural, in.gw.batches.Config().Policy)
	ctx := context.Background()
	c := client(t, in, nil)
	start := time.Now()
	for i := range n {
		require.NoError(t, c.Set(ctx, fmt.Sprint("n", i), i, 0).Err())
		require.Equal(t, fmt.Sprint(i), c.Get(ctx, fmt.Sprint("n", i)).Val())
	}
	took := time.Since(start)
	t.Logf("%d SET+GET pairs in %v with a %v linger", n, took, linger)
	assert.Less(t, took, n*linger/2, "commands did not wait out the linger")
	s := in.gw.batches.Stats()
	assert.InDelta(t, 1, s.MeanBatchSize(), 0.01, "a lone caller's batches hold its one item")
}

func TestControlEndpoint(t *testing.T) {
	in := startGateway(t, Config{})
	url := "http://" + in.httpLn.Addr().String() + "/control/"
	resp, err := http.Post(url, "application/json", strings.NewReader(
		`{"who":"test","why":"wider window","changes":[{"knob":"batcher.linger","value":"3ms"},{"knob":"shed.max_queue","value":10}]}`))
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode, string(body))
	assert.Equal(t, 3*time.Millisecond, in.gw.batches.Config().Linger)
	in.gw.mu.Lock()
	assert.Equal(t, 10, in.gw.shedCfg.MaxQueue)
	assert.True(t, in.gw.shedCfg.ShedOnArrival, "on by default")
	in.gw.mu.Unlock()

	resp, err = http.Post(url, "application/json", strings.NewReader(
		`{"who":"test","why":"compare","changes":[{"knob":"shed.on_arrival","value":false},{"knob":"shed.arrival_order","value":false}]}`))
	require.NoError(t, err)
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode, string(body))
	in.gw.mu.Lock()
	assert.False(t, in.gw.shedCfg.ShedOnArrival)
	assert.False(t, in.gw.shedCfg.FreshArrivalOrder)
	in.gw.mu.Unlock()

	resp, err = http.Get(url)
	require.NoError(t, err)
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{`"batcher"`, `"coalesce"`, `"aimd"`, `"shed"`, `"quota.default.rate"`} {
		assert.Contains(t, string(body), want)
	}
	_, err = in.reg.Rollback("test", "undo")
	require.NoError(t, err)
	in.gw.mu.Lock()
	assert.True(t, in.gw.shedCfg.ShedOnArrival, "the last change undone")
	assert.True(t, in.gw.shedCfg.FreshArrivalOrder)
	in.gw.mu.Unlock()
	_, err = in.reg.Rollback("test", "undo")
	require.NoError(t, err)
	assert.Equal(t, 200*time.Microsecond, in.gw.batches.Config().Linger)
}

// TestGracefulShutdownKeepsAcknowledgedWrites shuts the gateway down while
// clients write: every SET that was acknowledged is in the store afterwards.
func TestGracefulShutdownKeepsAcknowledgedWrites(t *testing.T) {
	in := startGateway(t, Config{Linger: Duration(5 * time.Millisecond)})
	ctx := context.Background()
	var mu sync.Mutex
	var acked []string
	var wg sync.WaitGroup
	started := make(chan struct{})
	var once sync.Once
	for w := range 8 {
		wg.Go(func() {
			c := redis.NewClient(&redis.Options{Addr: in.Addr(), MaxRetries: -1, PoolSize: 4})
			defer c.Close()
			for i := 0; i < 5000; i++ {
				key := fmt.Sprintf("w%d:%d", w, i)
				if err := c.Set(ctx, key, "v", 0).Err(); err != nil {
					return
				}
				mu.Lock()
				acked = append(acked, key)
				mu.Unlock()
				if i == 20 {
					once.Do(func() { close(started) })
				}
			}
		})
	}
	<-started
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	require.NoError(t, in.Shutdown(sctx))
	wg.Wait()
	be := mustMemkv(t, in.gw.backend)
	missing := 0
	for _, k := range acked {
		var out [1]opResult
		require.NoError(t, be.Do(ctx, in.gw.shard(k), []op{{kind: opGet, key: k}}, out[:]))
		if !out[0].found {
			missing++
		}
	}
	t.Logf("%d acknowledged writes before shutdown, %d missing", len(acked), missing)
	assert.Zero(t, missing)
	assert.NotEmpty(t, acked)
}

// TestEmptyMultiBulkSkipped: "*0" and "*-1" are empty commands, which Redis
// skips: the commands after them are served on the same connection (the
// gateway closed it with a protocol error before; found by a review).
func TestEmptyMultiBulkSkipped(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-"})
	conn, err := net.Dial("tcp", in.Addr())
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.SetDeadline(time.Now().Add(5*time.Second)))
	rd := bufio.NewReader(conn)
	for _, give := range []string{"*0\r\n*1\r\n$4\r\nPING\r\n", "*-1\r\nPING\r\n", "*0\r\n", "*1\r\n$4\r\nPING\r\n"} {
		_, err := conn.Write([]byte(give))
		require.NoError(t, err)
		if give == "*0\r\n" {
			continue // no reply
		}
		line, err := rd.ReadString('\n')
		require.NoError(t, err, "after %q", give)
		require.Equal(t, "+PONG\r\n", line, "after %q", give)
	}
}

func TestMalformedInputGetsErrorThenClose(t *testing.T) {
	in := startGateway(t, Config{Limits: Limits{MaxRequestBytes: 1 << 10}})
	tests := []struct {
		name, give, want string
	}{
		{"bad multibulk", "*x\r\n", "-ERR Protocol error"},
		{"bad bulk length", "*1\r\n$-5\r\n", "-ERR Protocol error"},
		{"too large", "*2\r\n$3\r\nGET\r\n$100000\r\n" + strings.Repeat("a", 4096), "-ERR Protocol error: request too large"},
		{"inline ok", "PING\r\n", "+PONG"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", in.Addr())
			require.NoError(t, err)
			defer conn.Close()
			_, _ = conn.Write([]byte(tt.give))
			_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
			buf := make([]byte, 256)
			n, _ := io.ReadAtLeast(conn, buf, 1)
			assert.True(t, strings.HasPrefix(string(buf[:n]), tt.want), "%q", buf[:n])
		})
	}
	info, err := client(t, in, nil).Info(context.Background(), "stats").Result()
	require.NoError(t, err)
	for _, line := range []string{"protocol_errors:2", "requests_too_large:1", "connection_panics:0"} {
		assert.Contains(t, info, line, "INFO stats counts them")
	}
}

// TestRefusedRequestEndsCleanly: a client refused for an oversized or
// malformed request while it is still sending it finishes its write, reads
// the error, then the end of the stream; not a reset, which closing the
// connection with the client's bytes unread provokes.
func TestRefusedRequestEndsCleanly(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-", Limits: Limits{MaxRequestBytes: 1 << 12}})
	tests := []struct {
		name, give, want string
	}{
		{"too large", "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$100000\r\n" + strings.Repeat("x", 100000) + "\r\n", "-ERR Protocol error: request too large\r\n"},
		{"malformed", "PING\r\n*1\r\n$x\r\n" + strings.Repeat("PING\r\n", 10000), "+PONG\r\n-ERR Protocol error: invalid bulk length\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", in.Addr())
			require.NoError(t, err)
			defer conn.Close()
			require.NoError(t, conn.SetDeadline(time.Now().Add(10*time.Second)))
			written := make(chan error, 1)
			go func() {
				_, err := conn.Write([]byte(tt.give))
				if err == nil {
					err = conn.(*net.TCPConn).CloseWrite()
				}
				written <- err
			}()
			out, err := io.ReadAll(conn)
			require.NoError(t, err, "the connection ends with the end of the stream (got %q)", out)
			assert.Equal(t, tt.want, string(out))
			require.NoError(t, <-written, "the client sends all of its request")
		})
	}
}

func TestMaxConns(t *testing.T) {
	in := startGateway(t, Config{Limits: Limits{MaxConns: 1}})
	c1, err := net.Dial("tcp", in.Addr())
	require.NoError(t, err)
	defer c1.Close()
	_, _ = c1.Write([]byte("PING\r\n"))
	buf := make([]byte, 64)
	_, err = io.ReadAtLeast(c1, buf, 1)
	require.NoError(t, err)
	c2, err := net.Dial("tcp", in.Addr())
	require.NoError(t, err)
	defer c2.Close()
	_ = c2.SetReadDeadline(time.Now().Add(5 * time.Second))
	n, _ := io.ReadAtLeast(c2, buf, 1)
	assert.Contains(t, string(buf[:n]), "max number of clients")
}

func TestMetricsEndpoint(t *testing.T) {
	in := startGateway(t, Config{})
	c := client(t, in, nil)
	ctx := context.Background()
	require.NoError(t, c.Set(ctx, "m", "1", 0).Err())
	require.Equal(t, "1", c.Get(ctx, "m").Val())
	resp, err := http.Get("http://" + in.httpLn.Addr().String() + "/metrics")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		`gateway_requests_total{command="GET",outcome="ok",tenant="default"} 1`,
		`gateway_request_seconds_count{command="SET",tenant="default"} 1`,
		"gateway_backend_calls_total 2", "gateway_coalesce_calls_total 1", `gateway_quota_tokens{tenant="default"}`,
		`gateway_backend_shard_up{shard="0"} 1`, `gateway_backend_shard_failed_batches_total{shard="3"} 0`,
	} {
		assert.Contains(t, string(body), want)
	}
}

// TestPipelineScratchReuse: a connection reuses its pipeline memory from one
// chunk to the next (pipeScratch). Pipelines of changing sizes on 4
// connections at once, each writing its own values and reading them back in
// the next pipeline, always read what they wrote: nothing of an earlier
// chunk leaks into a later one, and no connection sees another's memory.
func TestPipelineScratchReuse(t *testing.T) {
	in := startGateway(t, Config{})
	ctx := context.Background()
	var wg sync.WaitGroup
	for c := range 4 {
		wg.Go(func() {
			cl := client(t, in, &redis.Options{PoolSize: 1})
			for round, n := range []int{32, 3, 17, 1, 40, 2, 9} {
				key := func(i int) string { return fmt.Sprintf("sr:%d:%d", c, i) }
				val := func(i int) string { return fmt.Sprintf("v%d.%d.%d", c, round, i) }
				_, err := cl.Pipelined(ctx, func(p redis.Pipeliner) error {
					for i := range n {
						p.Set(ctx, key(i), val(i), 0)
					}
					return nil
				})
				if !assert.NoError(t, err) {
					return
				}
				cmds, err := cl.Pipelined(ctx, func(p redis.Pipeliner) error {
					for i := range n {
						p.Get(ctx, key(i))
					}
					p.MGet(ctx, key(0), key(n-1))
					return nil
				})
				if !assert.NoError(t, err) {
					return
				}
				for i := range n {
					assert.Equal(t, val(i), cmds[i].(*redis.StringCmd).Val(), "conn %d round %d key %d", c, round, i)
				}
				assert.Equal(t, []any{val(0), val(n - 1)}, cmds[n].(*redis.SliceCmd).Val(), "conn %d round %d", c, round)
			}
		})
	}
	wg.Wait()
}
