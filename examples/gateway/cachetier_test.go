package main

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"

	"github.com/tierkit/tierkit/control"
	"github.com/tierkit/tierkit/internal/leak"
)

// TestCachingTier: repeated GETs are served from the cache (no backend call),
// a client reads its own write at once, a write made behind the gateway's back
// (straight into the store) reaches the cache through the change feed, and TTLs
// still expire.
func TestCachingTier(t *testing.T) {
	leak.Check(t)
	in := startGateway(t, Config{CacheCapacity: 1000, CacheStaleness: Duration(time.Minute)})
	ctx := context.Background()
	c := client(t, in, nil)
	checkHitsAndOwnWrites(t, in, c, func() { syncMemkvFeed(t, in.gw) })

	// Another writer commits straight to the shard: the feed invalidates.
	be := mustMemkv(t, in.gw.backend)
	_, err := be.stores[in.gw.shard("ck")].Put(ctx, []byte("ck"), encodeValue([]byte("v3"), 0))
	require.NoError(t, err)
	for deadline := time.Now().Add(10 * time.Second); c.Get(ctx, "ck").Val() != "v3"; {
		require.True(t, time.Now().Before(deadline), "the change feed did not invalidate the entry")
		time.Sleep(time.Millisecond) // bounded poll: the feed is applied by another goroutine
	}

	require.NoError(t, c.Set(ctx, "ttl", "x", 30*time.Millisecond).Err())
	require.Equal(t, "x", c.Get(ctx, "ttl").Val())
	for deadline := time.Now().Add(10 * time.Second); c.Get(ctx, "ttl").Err() != redis.Nil; {
		require.True(t, time.Now().Before(deadline), "a cached value outlived its TTL")
		time.Sleep(time.Millisecond)
	}
	_, err = in.reg.Apply(control.Request{Who: "test", Changes: []control.Change{
		{Knob: "cache.max_staleness", Value: control.Duration(time.Second)},
		{Knob: "cache.capacity", Value: control.Int(10)},
	}})
	require.NoError(t, err)
	assert.Equal(t, time.Second, in.gw.cache.caches[0].Load().Config().MaxStaleness)
	assert.Equal(t, 10, in.gw.cache.caches[1].Load().Config().Capacity)

	st := in.gw.cache.stats()
	t.Logf("cache: %v", st)
	assert.Positive(t, st["hits"])
	assert.Positive(t, st["invalidations"])
}

// syncMemkvFeed waits until every shard's cache has applied its store's
// change feed up to now: it cuts a checkpoint on each store and waits for the
// cache's watermark to reach it. Without it, a write's feed event may arrive
// after a later read filled the key, and (rightly: the fill carries no
// version) evict it, so the next read loads again.
func syncMemkvFeed(t *testing.T, g *Gateway) {
	t.Helper()
	be := mustMemkv(t, g.backend)
	for i, st := range be.stores {
		v := st.Checkpoint()
		for deadline := time.Now().Add(10 * time.Second); g.cache.caches[i].Load().Stats().Watermark < v; {
			require.True(t, time.Now().Before(deadline), "shard %d: the feed did not deliver checkpoint %d", i, v)
			time.Sleep(time.Millisecond) // bounded poll: the feed is applied by another goroutine
		}
	}
}

// checkHitsAndOwnWrites: after a SET and sync (which waits for the feed to
// catch up with it), repeated GETs make no backend call, and a client reads
// its own next write at once.
func checkHitsAndOwnWrites(t *testing.T, in *instance, c *redis.Client, sync func()) {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, c.Set(ctx, "ck", "v1", 0).Err())
	sync()
	require.Equal(t, "v1", c.Get(ctx, "ck").Val())
	before := in.gw.n.backendCalls.Load()
	for range 50 {
		require.Equal(t, "v1", c.Get(ctx, "ck").Val())
	}
	assert.Equal(t, before, in.gw.n.backendCalls.Load(), "hits make no backend call")
	require.NoError(t, c.Set(ctx, "ck", "v2", 0).Err())
	require.Equal(t, "v2", c.Get(ctx, "ck").Val(), "read-your-writes")
}

// TestCachingTierMGET: an MGET through the caching tier loads what the
// caches miss with one backend call per shard, is then served from memory,
// reads its own writes, and answers missing keys as null.
func TestCachingTierMGET(t *testing.T) {
	leak.Check(t)
	in := startGateway(t, Config{CacheCapacity: 1000, CacheStaleness: Duration(time.Minute)})
	ctx := context.Background()
	c := client(t, in, nil)
	keys := make([]string, 20)
	want := make([]any, 20)
	shards := map[int]bool{}
	for i := range keys {
		keys[i] = fmt.Sprintf("mk:%d", i)
		shards[in.gw.shard(keys[i])] = true
		if i%4 == 3 {
			continue // missing: null
		}
		want[i] = fmt.Sprintf("v%d", i)
		require.NoError(t, c.Set(ctx, keys[i], want[i], 0).Err())
	}
	syncMemkvFeed(t, in.gw)
	before := in.gw.n.backendCalls.Load()
	got, err := c.MGet(ctx, keys...).Result()
	require.NoError(t, err)
	assert.Equal(t, want, got)
	assert.Equal(t, uint64(len(shards)), in.gw.n.backendCalls.Load()-before, "one load per shard for the misses")

	before = in.gw.n.backendCalls.Load()
	for range 10 {
		got, err = c.MGet(ctx, keys...).Result()
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	assert.Equal(t, before, in.gw.n.backendCalls.Load(), "hits make no backend call")

	require.NoError(t, c.Set(ctx, keys[0], "new", 0).Err())
	got, err = c.MGet(ctx, keys[0], keys[1]).Result()
	require.NoError(t, err)
	assert.Equal(t, []any{"new", want[1]}, got, "read-your-writes")
}

// TestCachingTierFeedBurst: a burst of writes made straight into the stores
// (more events than the feed hands the cache in one call) invalidates every
// cached key it touches: none of them is lost between two batches.
func TestCachingTierFeedBurst(t *testing.T) {
	in := startGateway(t, Config{CacheCapacity: 5000, CacheStaleness: Duration(time.Minute)})
	ctx := context.Background()
	c := client(t, in, nil)
	const n = 600
	key := func(i int) string { return fmt.Sprint("burst:", i) }
	for i := range n {
		require.NoError(t, c.Set(ctx, key(i), "old", 0).Err())
	}
	syncMemkvFeed(t, in.gw)
	for i := range n {
		require.Equal(t, "old", c.Get(ctx, key(i)).Val()) // now cached
	}
	// One commit per shard, so that each store publishes its keys' events at
	// once and the feed finds them all buffered.
	be := mustMemkv(t, in.gw.backend)
	sets := make([][][]byte, len(be.stores))
	for i := range n {
		k := key(i)
		sh := in.gw.shard(k)
		sets[sh] = append(sets[sh], []byte(k), encodeValue([]byte("new"), 0))
	}
	for sh, st := range be.stores {
		require.Greater(t, len(sets[sh])/2, feedApplyBatch, "shard %d: a burst longer than one batch", sh)
		_, err := st.Commit(ctx, &memkv.CommitRequest{ReadVersion: st.ReadVersion(), Sets: sets[sh]})
		require.NoError(t, err)
	}
	syncMemkvFeed(t, in.gw)
	for i := range n {
		require.Equal(t, "new", c.Get(ctx, key(i)).Val(), "key %d kept its old value", i)
	}
}

// TestCachingTierExpiredIsNoHit: a cached value whose TTL ran out is not a
// hit, on the GET path and on the multi-key path: the first read of it after
// its expiry counts a miss and no hit, and answers null. Expiry is judged by
// the backend's clock (expiryNow), as the store judges it: the tier read the
// wall clock, so with the store's clock ahead of it (explicit time, the
// backend's) it served values the store had expired, and with the store's
// clock behind it a GET answered null where the store, and an MGET, served
// the value.
func TestCachingTierExpiredIsNoHit(t *testing.T) {
	in := startGateway(t, Config{CacheCapacity: 1000, CacheStaleness: Duration(time.Minute)})
	be := mustMemkv(t, in.gw.backend)
	var clock atomic.Int64
	clock.Store(time.Now().Add(-time.Hour).UnixNano()) // an hour behind the wall clock
	be.now = func() time.Time { return time.Unix(0, clock.Load()) }
	ctx := context.Background()
	c := client(t, in, nil)
	require.NoError(t, c.Set(ctx, "ex", "v", time.Minute).Err())
	require.NoError(t, c.Set(ctx, "ex2", "v", time.Minute).Err())
	syncMemkvFeed(t, in.gw)
	for range 2 { // a fill, then a hit: the store's clock says the value is live
		require.Equal(t, "v", c.Get(ctx, "ex").Val())
		got, err := c.MGet(ctx, "ex2", "absent").Result()
		require.NoError(t, err)
		require.Equal(t, []any{"v", nil}, got)
	}

	clock.Add(int64(2 * time.Minute)) // the TTLs ran out by the store's clock
	st := in.gw.cache.stats()
	require.ErrorIs(t, c.Get(ctx, "ex").Err(), redis.Nil, "GET served an expired value")
	got, err := c.MGet(ctx, "ex2").Result()
	require.NoError(t, err)
	assert.Equal(t, []any{nil}, got, "MGET served an expired value")
	after := in.gw.cache.stats()
	assert.Equal(t, st["hits"], after["hits"], "no read was served from the cache")
	assert.Equal(t, uint64(2), after["misses"]-st["misses"], "one miss per key read")
}

// TestCacheTierStatsMonotonicAcrossResets: the tier's counters never go back
// in one reading while resets replace caches: a reset moves a cache's counts
// into the retired totals, and stats must not read the totals before the
// move and the live caches after it.
func TestCacheTierStatsMonotonicAcrossResets(t *testing.T) {
	ct, err := newCacheTier(1, 100, 0)
	require.NoError(t, err)
	defer ct.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 5000 {
			c := ct.caches[0].Load()
			c.Set("k", cached{found: true})
			for range 10 {
				c.TryGet("k") // a hit
				runtime.Gosched()
			}
			ct.reset(0)
		}
	}()
	var last uint64
	oneP := runtime.GOMAXPROCS(0) == 1
	for {
		select {
		case <-done:
			return
		default:
		}
		hits := ct.stats()["hits"]
		require.GreaterOrEqual(t, hits, last, "hits went back")
		last = hits
		if oneP {
			// Let the writer run between readings: with one P, a reader
			// that never yields leaves it only the scheduler's 10 ms
			// slices, so that its 50,000 yields took many minutes (-cpu 1).
			// With more, the two run side by side, as they must for the
			// readings to meet a reset in progress.
			runtime.Gosched()
		}
	}
}

// TestCacheTierResetKeepsLateCounts: a read that took a shard's cache just
// before a reset replaced it counts on that cache after the reset; the
// tier's stats keep that count. Before, reset read the replaced cache's
// stats once, at the swap, and a hit or miss of such a read was lost.
func TestCacheTierResetKeepsLateCounts(t *testing.T) {
	ct, err := newCacheTier(1, 100, 0)
	require.NoError(t, err)
	defer ct.Close()
	c := ct.caches[0].Load() // a read takes the cache...
	c.Set("k", cached{found: true})
	ct.reset(0) // ...a reset replaces it...
	_, ok := c.TryGet("k")
	require.True(t, ok) // ...and the read hits the replaced cache
	c.TryGet("absent")  // and another misses there
	st := ct.stats()
	assert.Equal(t, uint64(1), st["hits"], "a hit on the replaced cache after the reset was lost")
	assert.Equal(t, uint64(1), st["misses"], "a miss on the replaced cache after the reset was lost")
	ct.Close() // the replaced caches' counts are final now
	st = ct.stats()
	assert.Equal(t, uint64(1), st["hits"])
	assert.Equal(t, uint64(1), st["misses"])
}

// TestCacheTierFillKeyError: a key whose read fails in a shared load (a GET
// of a key of another type, answered WRONGTYPE in a batch that mixes GETs with
// writes) answers its own error; the other keys of that load keep their
// values, as they do without the tier, and the load stores nothing.
func TestCacheTierFillKeyError(t *testing.T) {
	ct, err := newCacheTier(1, 100, time.Minute)
	require.NoError(t, err)
	defer ct.Close()
	bad := errors.New("WRONGTYPE Operation against a key holding the wrong kind of value")
	load := func(_ context.Context, keys []string) ([]opResult, error) {
		out := make([]opResult, len(keys))
		for i, k := range keys {
			if k == "list" {
				out[i] = opResult{err: bad}
			} else {
				out[i] = opResult{value: []byte("v" + k), found: true}
			}
		}
		return out, nil
	}
	rs, err := ct.getMany(context.Background(), 0, []string{"a", "list", "b"}, load)
	require.NoError(t, err)
	require.Len(t, rs, 3)
	assert.Equal(t, opResult{value: []byte("va"), found: true}, rs[0])
	assert.ErrorIs(t, rs[1].err, bad)
	assert.Equal(t, opResult{value: []byte("vb"), found: true}, rs[2])
	assert.Zero(t, ct.caches[0].Load().Len(), "a load with a failed key stores nothing")
}

// TestCachingTierCountsEveryRead: the tier's hits and misses count every
// key a read asks for, whichever way it goes: identical GETs of one
// pipeline run (and a key repeated in an MGET), which share one lookup,
// count one each, as the lookup they share counted (a hit of a cached key, a
// miss of one never read). They counted once per run: 16 pipelined GETs of
// a hot key were one hit, where 16 GETs one at a time are 16.
func TestCachingTierCountsEveryRead(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-", CacheCapacity: 1000, CacheStaleness: Duration(time.Minute)})
	ctx := context.Background()
	c := client(t, in, nil)
	require.NoError(t, c.Set(ctx, "hot", "v", 0).Err())
	syncMemkvFeed(t, in.gw)
	require.Equal(t, "v", c.Get(ctx, "hot").Val()) // cached now
	counts := func() (hits, misses uint64) {
		st := in.gw.cache.stats()
		return st["hits"], st["misses"]
	}
	check := func(what string, wantHits, wantMisses uint64, read func()) {
		t.Helper()
		h0, m0 := counts()
		read()
		h1, m1 := counts()
		assert.Equal(t, wantHits, h1-h0, "%s: hits", what)
		assert.Equal(t, wantMisses, m1-m0, "%s: misses", what)
	}
	check("16 GETs one at a time", 16, 0, func() {
		for range 16 {
			require.Equal(t, "v", c.Get(ctx, "hot").Val())
		}
	})
	check("16 pipelined GETs", 16, 0, func() {
		_, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
			for range 16 {
				p.Get(ctx, "hot")
			}
			return nil
		})
		require.NoError(t, err)
	})
	check("MGET of a key 3 times", 3, 0, func() {
		require.Equal(t, []any{"v", "v", "v"}, c.MGet(ctx, "hot", "hot", "hot").Val())
	})
	check("pipelined GETs and an MGET of a key never read", 0, 4, func() {
		_, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
			p.Get(ctx, "cold")
			p.Get(ctx, "cold")
			p.MGet(ctx, "cold", "cold")
			return nil
		})
		require.ErrorIs(t, err, redis.Nil)
	})
}
