package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/internal/leak"
)

func redisCachingGateway(t *testing.T, staleness time.Duration) (*instance, *redis.Client) {
	t.Helper()
	shard := startRedis(t)
	in := startGateway(t, Config{Backend: BackendConfig{Kind: "redis", Redis: []string{shard.addr}, Pool: 4},
		CacheCapacity: 1000, CacheStaleness: Duration(staleness)})
	direct := redis.NewClient(&redis.Options{Addr: shard.addr, MaxRetries: -1})
	t.Cleanup(func() { _ = direct.Close() })
	return in, direct
}

// eventually polls cond every millisecond until it holds, for at most 10 s of
// wall time (ample for -race on a loaded machine): the feed is applied by
// another goroutine.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	eventuallyWithin(t, 10*time.Second, what, cond)
}

// eventuallyWithin polls cond every millisecond until it holds, for at most
// within of wall time. The bound is a time, not a number of polls: a poll
// costs what cond costs (an INFO to a loading shard took 28 ms), so a count
// bounded nothing that the test states.
func eventuallyWithin(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(within); !cond(); {
		require.True(t, time.Now().Before(deadline), "%s (within %v)", what, within)
		time.Sleep(time.Millisecond) // bounded poll
	}
}

// syncFeed waits until two checkpoint markers have reached shard 0's cache:
// every change made before the call has then been applied.
func syncFeed(t *testing.T, in *instance) {
	t.Helper()
	c := in.gw.cache.caches[0].Load()
	n := c.Stats().Checkpoints
	eventually(t, "no checkpoint marker arrived", func() bool {
		return in.gw.cache.caches[0].Load() != c || c.Stats().Checkpoints >= n+2
	})
}

// TestRedisCachingTier: on a Redis shard, the caching tier turns keyspace
// notifications on, serves repeated GETs without a backend call, sees writes
// made behind its back (SET, DEL, expiry), and after its subscriber
// connection is killed starts over with an empty cache and sees writes again.
func TestRedisCachingTier(t *testing.T) {
	leak.Check(t)                                     // the feed's goroutines end with the gateway
	in, direct := redisCachingGateway(t, time.Minute) // only the feed invalidates
	ctx := context.Background()
	flags, err := direct.ConfigGet(ctx, "notify-keyspace-events").Result()
	require.NoError(t, err)
	assert.True(t, notificationsCover(flags["notify-keyspace-events"]), "flags now %q", flags)

	c := client(t, in, nil)
	// The SET's own notification invalidates the key: wait for it.
	checkHitsAndOwnWrites(t, in, c, func() { syncFeed(t, in) })

	require.NoError(t, direct.Set(ctx, "ck", "v3", 0).Err())
	eventually(t, "a direct SET did not reach the cache", func() bool { return c.Get(ctx, "ck").Val() == "v3" })
	require.NoError(t, direct.Del(ctx, "ck").Err())
	eventually(t, "a direct DEL did not reach the cache", func() bool { return c.Get(ctx, "ck").Err() == redis.Nil })

	// No key has an expiry yet: fills skip PTTL.
	rb, _ := asRedis(in.gw.backend)
	assert.False(t, rb.volatile[0].isSet())
	info, err := direct.Info(ctx, "commandstats").Result()
	require.NoError(t, err)
	assert.NotContains(t, info, "cmdstat_pttl")

	// A value with an expiry is cached with it (PTTL in the fill).
	// The TTL outlasts syncFeed (two markers, up to 200 ms, longer on a loaded
	// machine); the expiry is then polled for up to 5 s.
	require.NoError(t, direct.Set(ctx, "ttl", "x", 1500*time.Millisecond).Err())
	syncFeed(t, in)
	require.Equal(t, "x", c.Get(ctx, "ttl").Val())
	v, ok := in.gw.cache.caches[0].Load().TryGet("ttl")
	require.True(t, ok)
	assert.True(t, rb.volatile[0].isSet(), "the expire notification marks the shard volatile")
	assert.Positive(t, v.expireAt, "the fill carries the key's expiry")
	assert.LessOrEqual(t, v.expireAt, time.Now().Add(1500*time.Millisecond).UnixNano())
	eventually(t, "a cached value outlived its TTL", func() bool { return c.Get(ctx, "ttl").Err() == redis.Nil })

	// Kill the subscriber: notifications are lost until it resubscribes, so
	// the cache starts over, and then sees writes again.
	resets := in.gw.cache.resets.Load()
	require.NoError(t, c.Set(ctx, "k2", "a", 0).Err())
	syncFeed(t, in)
	require.Equal(t, "a", c.Get(ctx, "k2").Val())
	require.NoError(t, direct.Do(ctx, "CLIENT", "KILL", "TYPE", "pubsub").Err())
	eventually(t, "the feed did not resubscribe", func() bool { return in.gw.cache.resets.Load() > resets })
	_, ok = in.gw.cache.caches[0].Load().TryGet("k2")
	assert.False(t, ok, "nothing cached before the gap is kept")
	require.Equal(t, "a", c.Get(ctx, "k2").Val())
	require.NoError(t, direct.Set(ctx, "k2", "b", 0).Err())
	eventually(t, "a direct SET after the reconnect did not reach the cache", func() bool { return c.Get(ctx, "k2").Val() == "b" })
	t.Logf("cache: %v", in.gw.cache.stats())
}

// TestRedisCachingTierStalenessBound: a writer increments a key straight on
// the shard while readers GET it through the gateway; the subscriber is
// killed twice on the way. Every read returns a value at least as new as
// every write acknowledged more than the bound before the read began. The
// readers run until the writer is done, and the writer is not done before
// reads begun after the last kill were checked: readers that stopped after a
// fixed count could all be done before the kills, and then no read checked
// the bound across a lost feed while the test still passed.
func TestRedisCachingTierStalenessBound(t *testing.T) {
	const bound = 30 * time.Millisecond
	in, direct := redisCachingGateway(t, bound)
	r := &stalenessRun{t: t, in: in, direct: direct, bound: bound, deadline: time.Now().Add(30 * time.Second)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.write(600)
	}()
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() { r.read(client(t, in, nil), done) })
	}
	wg.Wait()
	<-done
	st := in.gw.cache.stats()
	t.Logf("%d reads (%d begun after the last kill), %d writes; cache %v", r.reads, r.afterKill, len(r.acked), st)
	assert.GreaterOrEqual(t, r.afterKill, stalenessAfterKill, "reads checked after the last kill")
	assert.Positive(t, st["hits"], "the cache served reads")
	assert.GreaterOrEqual(t, st["resets"], uint64(3), "one reset per (re)subscription")
}

// stalenessAfterKill is how many reads begun after the last kill the writer
// of TestRedisCachingTierStalenessBound waits for, writing on, before it is
// done.
const stalenessAfterKill = 20

// stalenessRun is what TestRedisCachingTierStalenessBound's writer and
// readers share.
type stalenessRun struct {
	t        *testing.T
	in       *instance
	direct   *redis.Client
	bound    time.Duration
	deadline time.Time // for the whole run, wall clock

	mu        sync.Mutex
	acked     []time.Time // acked[i]: value i+1 acknowledged
	kills     []time.Time // when each kill of the subscriber was acknowledged
	reads     int         // reads checked
	afterKill int         // of them, those begun after the second kill
}

// write makes writes increments, killing the subscriber after a third and
// after two thirds of them, then writes on until stalenessAfterKill reads
// begun after the second kill were checked; all before the run's deadline.
func (r *stalenessRun) write(writes int) {
	for i := 0; i < writes || r.readsAfterKill() < stalenessAfterKill; i++ {
		if !assert.True(r.t, time.Now().Before(r.deadline), "the writer ran out of time: %d writes, %d reads after the last kill",
			i, r.readsAfterKill()) || !r.incr() {
			return
		}
		if (i == writes/3 || i == 2*writes/3) && !r.kill() {
			return
		}
	}
}

// kill kills the subscriber, then keeps writing while it is gone (the
// writes' notifications are lost) and waits (bounded) for it to come back,
// so that the next kill finds a subscriber to kill.
func (r *stalenessRun) kill() bool {
	r0 := r.in.gw.cache.resets.Load()
	if !assert.NoError(r.t, r.direct.Do(context.Background(), "CLIENT", "KILL", "TYPE", "pubsub").Err()) {
		return false
	}
	r.mu.Lock()
	r.kills = append(r.kills, time.Now())
	r.mu.Unlock()
	for deadline := time.Now().Add(10 * time.Second); r.in.gw.cache.resets.Load() == r0; {
		if !assert.True(r.t, time.Now().Before(deadline), "the feed did not resubscribe") || !r.incr() {
			return false
		}
		time.Sleep(time.Millisecond) // bounded poll, writing meanwhile
	}
	return true
}

// incr increments the key on the shard and records when it was acknowledged.
func (r *stalenessRun) incr() bool {
	if !assert.NoError(r.t, r.direct.Incr(context.Background(), "ctr").Err()) {
		return false
	}
	r.mu.Lock()
	r.acked = append(r.acked, time.Now())
	r.mu.Unlock()
	return true
}

func (r *stalenessRun) readsAfterKill() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.afterKill
}

// read GETs the key through c until done (or the run's deadline), checking
// each value against the writes acknowledged more than the bound before the
// read began.
func (r *stalenessRun) read(c *redis.Client, done <-chan struct{}) {
	for {
		select {
		case <-done:
			return
		default:
		}
		if !assert.True(r.t, time.Now().Before(r.deadline), "the readers ran out of time") {
			return
		}
		t0 := time.Now()
		s, err := c.Get(context.Background(), "ctr").Result()
		if err == redis.Nil {
			s, err = "0", nil
		}
		if !assert.NoError(r.t, err) {
			return
		}
		got, _ := strconv.Atoi(s)
		r.mu.Lock()
		must := 0 // writes acknowledged before t0 - bound
		for must < len(r.acked) && r.acked[must].Before(t0.Add(-r.bound)) {
			must++
		}
		r.reads++
		if len(r.kills) == 2 && t0.After(r.kills[1]) {
			r.afterKill++
		}
		r.mu.Unlock()
		if !assert.GreaterOrEqual(r.t, got, must, "read at %v returned %d, older than write %d acknowledged before t - bound", t0, got, must) {
			return
		}
	}
}

func TestParseExpires(t *testing.T) {
	for _, tc := range []struct {
		info string
		want int
	}{
		{"# Keyspace\r\n", 0},
		{"# Keyspace\r\ndb0:keys=10,expires=0,avg_ttl=0\r\n", 0},
		{"# Keyspace\r\ndb0:keys=10,expires=2,avg_ttl=5\r\ndb3:keys=1,expires=1,avg_ttl=9\r\n", 3},
	} {
		n, err := parseExpires(tc.info)
		require.NoError(t, err)
		assert.Equal(t, tc.want, n, "%q", tc.info)
	}
	_, err := parseExpires("db0:keys=1,expires=x,avg_ttl=0\r\n")
	assert.Error(t, err)
}

func TestNotificationsCover(t *testing.T) {
	for _, tc := range []struct {
		flags string
		ok    bool
	}{
		{"", false}, {"KA", true}, {"AK", true}, {"AKE", true}, {"EA", false}, {"Kg$xe", false},
		{"Kg$x", false}, {"K$", false}, {"KEA", true}, {"Eg$xe", false},
	} {
		assert.Equal(t, tc.ok, notificationsCover(tc.flags), "%q", tc.flags)
	}
}

// TestRedisCachingTierNeedsNotifications: a shard that will not turn
// notifications on (CONFIG disabled) fails the start with a clear error.
func TestRedisCachingTierNeedsNotifications(t *testing.T) {
	shard := startRedis(t, "--rename-command", "CONFIG", "")
	cfg := Config{Backend: BackendConfig{Kind: "redis", Redis: []string{shard.addr}, Pool: 2},
		CacheCapacity: 10, Addr: "127.0.0.1:0", HTTPAddr: "127.0.0.1:0"}
	_, err := start(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "notify-keyspace-events")
	assert.Contains(t, err.Error(), shard.addr)
	t.Log(err)
}

// TestRedisCachingTierVolatileAtStart: a shard that already holds keys with
// an expiry when the gateway subscribes is volatile from the start, so the
// first fill of such a key carries its expiry.
func TestRedisCachingTierVolatileAtStart(t *testing.T) {
	shard := startRedis(t)
	direct := redis.NewClient(&redis.Options{Addr: shard.addr, MaxRetries: -1})
	t.Cleanup(func() { _ = direct.Close() })
	ctx := context.Background()
	require.NoError(t, direct.Set(ctx, "old", "v", time.Hour).Err())
	in := startGateway(t, Config{Backend: BackendConfig{Kind: "redis", Redis: []string{shard.addr}, Pool: 2},
		CacheCapacity: 100, CacheStaleness: Duration(time.Minute)})
	rb, _ := asRedis(in.gw.backend)
	assert.True(t, rb.volatile[0].isSet())
	require.Equal(t, "v", client(t, in, nil).Get(ctx, "old").Val())
	v, ok := in.gw.cache.caches[0].Load().TryGet("old")
	require.True(t, ok)
	assert.Greater(t, v.expireAt, time.Now().Add(59*time.Minute).UnixNano())
}

// TestRedisCachingTierPipelinedWrites: a pipeline of plain SETs (the
// one-batch-per-shard path) invalidates the keys it writes in the gateway's
// cache itself: with the shard's notifications turned off after the start,
// the next GETs, pipelined too, still read the new values.
func TestRedisCachingTierPipelinedWrites(t *testing.T) {
	in, direct := redisCachingGateway(t, time.Minute)
	ctx := context.Background()
	require.NoError(t, direct.ConfigSet(ctx, "notify-keyspace-events", "").Err())
	c := client(t, in, nil)
	for round := range 3 {
		_, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
			for k := range 16 {
				p.Set(ctx, fmt.Sprint("pk", k), fmt.Sprint(round), 0)
			}
			return nil
		})
		require.NoError(t, err)
		for range 2 { // the first reads fill the cache, the second hit it
			cmds, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
				for k := range 16 {
					p.Get(ctx, fmt.Sprint("pk", k))
				}
				return nil
			})
			require.NoError(t, err)
			for _, cmd := range cmds {
				require.Equal(t, fmt.Sprint(round), cmd.(*redis.StringCmd).Val(), "round %d", round)
			}
		}
	}
	assert.Positive(t, in.gw.cache.stats()["hits"], "the second reads were served from the cache")
}

// TestRedisCachedPipelineShardDown: with the caching tier on Redis shards, a
// pipeline of GETs over both shards (cachedParts) fills the caches; with one
// shard down, a pipeline of keys not cached fails only that shard's keys,
// promptly, and serves the other's; once the shard is back (empty) its keys
// read as missing.
func TestRedisCachedPipelineShardDown(t *testing.T) {
	leak.Check(t)
	shards := []*redisServer{startRedis(t), startRedis(t)}
	var logs syncBuffer
	in := startGatewayLog(t, Config{Backend: BackendConfig{Kind: "redis", Redis: []string{shards[0].addr, shards[1].addr}, Pool: 4},
		CacheCapacity: 1000, CacheStaleness: Duration(time.Minute)}, slog.New(slog.NewJSONHandler(&logs, nil)))
	ctx := context.Background()
	c := client(t, in, nil)
	keysOn := [2][]string{}
	for i := 0; len(keysOn[0]) < 10 || len(keysOn[1]) < 10; i++ {
		k := fmt.Sprint("pk", i)
		if s := in.gw.shard(k); len(keysOn[s]) < 10 {
			keysOn[s] = append(keysOn[s], k)
			require.NoError(t, c.Set(ctx, k, "v"+k, 0).Err())
		}
	}
	get := func(keys ...string) []*redis.StringCmd {
		t.Helper()
		var out []*redis.StringCmd
		_, _ = c.Pipelined(ctx, func(p redis.Pipeliner) error {
			for _, k := range keys {
				out = append(out, p.Get(ctx, k))
			}
			return nil
		})
		return out
	}
	first := append(slices.Clone(keysOn[0][:5]), keysOn[1][:5]...)
	for i, r := range get(first...) {
		require.Equal(t, "v"+first[i], r.Val(), "GET %s: %v", first[i], r.Err())
	}
	assert.Positive(t, in.gw.cache.stats()["loads"])

	bin, err := exec.LookPath("redis-server")
	require.NoError(t, err)
	port, err := strconv.Atoi(strings.TrimPrefix(shards[1].addr, "127.0.0.1:"))
	require.NoError(t, err)
	shards[1].stop()
	second := append(slices.Clone(keysOn[0][5:]), keysOn[1][5:]...)
	start := time.Now()
	for i, r := range get(second...) {
		if i < 5 {
			require.Equal(t, "v"+second[i], r.Val(), "the other shard still serves: %v", r.Err())
		} else {
			require.ErrorContains(t, r.Err(), "backend shard 1", "GET %s", second[i])
		}
	}
	assert.Less(t, time.Since(start), 3*time.Second, "fails promptly")

	assert.False(t, in.gw.health[0].down.Load(), "shard 0 up")
	assert.True(t, in.gw.health[1].down.Load(), "shard 1 down")
	backend := c.Info(ctx, "backend").Val()
	assert.Contains(t, backend, "shard0:up=1,failed_batches=0\r\n")
	assert.Regexp(t, `shard1:up=0,failed_batches=[1-9][0-9]*,down_since_ms=[0-9]+\r\n`, backend)

	shards[1].start(t, bin, port) // back, empty (no persistence)
	eventually(t, "the shard's keys did not read as missing", func() bool {
		for _, r := range get(keysOn[1][5:]...) {
			if r.Err() != redis.Nil {
				return false
			}
		}
		return true
	})
	assert.False(t, in.gw.health[1].down.Load(), "shard 1 up again")
	// The outage and the feed's loss are logged once each, and so are
	// their ends (the feed resubscribes on its own backoff).
	eventually(t, "the feed's return was not logged", func() bool {
		return strings.Contains(logs.String(), "change feed is back")
	})
	count := map[string]int{}
	for _, l := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m), l)
		if m["shard"] == float64(1) {
			count[fmt.Sprint(m["level"], " ", m["msg"])]++
		}
	}
	assert.Equal(t, map[string]int{
		"WARN backend shard unreachable: its keys fail until it answers": 1,
		"INFO backend shard answers again":                               1,
		"WARN caching tier: lost a shard's change feed; until it is back, its cache serves each value for at most one staleness bound after its fill": 1,
		"INFO caching tier: a shard's change feed is back; its cache was emptied":                                                                     1,
	}, count)
}

// syncBuffer is a bytes.Buffer safe for a logger's concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestRedisCachingTierSeesTypeChange: a shard started with notifications for
// the generic and string classes only (K, g, $, x, e) does not announce a
// write that turns a cached string key into a set (SUNIONSTORE is a set
// event) or a list (SORT ... STORE, a list event): the tier must turn on the
// other classes too, or it keeps serving the old string, which every marker
// vouches for again.
func TestRedisCachingTierSeesTypeChange(t *testing.T) {
	shard := startRedis(t, "--notify-keyspace-events", "Kg$xe")
	in := startGateway(t, Config{Backend: BackendConfig{Kind: "redis", Redis: []string{shard.addr}, Pool: 2},
		CacheCapacity: 100, CacheStaleness: Duration(time.Minute)})
	direct := redis.NewClient(&redis.Options{Addr: shard.addr, MaxRetries: -1})
	t.Cleanup(func() { _ = direct.Close() })
	ctx := context.Background()
	c := client(t, in, nil)
	keys := []string{"s", "l"}
	require.NoError(t, direct.SAdd(ctx, "src", "a").Err())
	for _, k := range keys {
		require.NoError(t, c.Set(ctx, k, "v", 0).Err())
	}
	syncFeed(t, in) // the SETs' own notifications are in
	for _, k := range keys {
		require.Equal(t, "v", c.Get(ctx, k).Val())
		_, ok := in.gw.cache.caches[0].Load().TryGet(k)
		require.True(t, ok, "%s cached", k)
	}
	require.NoError(t, direct.SUnionStore(ctx, "s", "src").Err())
	require.NoError(t, direct.SortStore(ctx, "src", "l", &redis.Sort{Alpha: true}).Err())
	syncFeed(t, in)
	for _, k := range keys {
		_, ok := in.gw.cache.caches[0].Load().TryGet(k)
		assert.False(t, ok, "%s still cached after its type changed behind the gateway's back", k)
		assert.NotEqual(t, "v", c.Get(ctx, k).Val(), "GET %s: the string it no longer holds", k)
	}
}
