package main

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tierkit/tierkit/cache"
	"github.com/tierkit/tierkit/memkv"
)

// cacheTier is the optional caching tier: one cache.Cache per shard, kept
// fresh by that shard's change feed, which a goroutine per shard applies in
// order. Two feeds exist: memkv's own (followMemkv; a ticker cuts a checkpoint
// when the shard is idle, so the bounded-staleness contract keeps hits
// flowing; each checkpoint carries its cut, so a follower's lag behind the
// store does not stretch the bound) and a Redis shard's keyspace
// notifications with a checkpoint marker (followRedis, redisfeed.go). Writes through the gateway also invalidate the
// key at once, so a client reads its own writes without waiting for the feed.
type cacheTier struct {
	caches []atomic.Pointer[cache.Cache[string, cached]]
	mu     sync.Mutex // protects cfg and retired, and orders reset with setConfig
	cfg    cache.Config[string]
	ctx    context.Context // ends at Close
	stop   context.CancelFunc
	wg     sync.WaitGroup
	resets atomic.Uint64 // caches replaced: after a gap in a feed, and once per Redis shard as its feed first subscribes
	// sharedHits and sharedMisses count the GETs of pipeline runs that
	// shared an identical GET's lookup (countShared).
	sharedHits, sharedMisses atomic.Uint64
	// retired sums the stats of the caches replaced by reset, so that
	// stats() keeps counting across resets; protected by mu.
	retired map[string]uint64
	// prev holds, per shard, the cache its latest reset replaced, for
	// retireGrace: a read that took it just before the swap counts its hit
	// or miss there after the swap, and stats() reads it until it moves to
	// retired (protected by mu).
	prev []retiring
	// changed is closed, and replaced, when a setConfig changes the
	// staleness bound: the checkpoint and marker loops then read their
	// period at once (protected by mu).
	changed chan struct{}
	log     *slog.Logger
	panics  *atomic.Uint64 // the fills' recovered panics (panics.go): the gateway's count
	// feedWait, if not nil, is the Redis feeds' wait of d before they dial
	// again (false: ctx ended); nil: a timer (tests record the waits).
	feedWait func(ctx context.Context, d time.Duration) bool
	// expiriesRead, if not nil, is called by a Redis feed's subscription
	// once it has read whether shard holds keys with an expiry (psubscribed):
	// tests write through the gateway there.
	expiriesRead func(shard int)
	// now is the clock a cached value's TTL is judged by: the backend's on
	// memkv (followMemkv), which stamps and judges its keys' expiry; the
	// wall clock otherwise (a Redis value's expiry is its PTTL from it).
	now func() time.Time
}

// retiring is a cache replaced by reset, and the timer that moves its stats
// to the retired totals.
type retiring struct {
	c *cache.Cache[string, cached]
	t *time.Timer
}

// retireGrace is how long a replaced cache's counts are still read after a
// reset: a read that took the cache before the swap counts on it within
// microseconds (a pipeline's lookup of all its keys a little later).
const retireGrace = time.Second

// cached is a GET result as the cache holds it.
type cached struct {
	value    []byte
	found    bool
	expireAt int64 // unix ns; 0: no expiry
}

// newCacheTier makes the caches of a tier over shards; a follow method then
// starts the feeds.
func newCacheTier(shards, capacity int, staleness time.Duration) (*cacheTier, error) {
	ct := &cacheTier{caches: make([]atomic.Pointer[cache.Cache[string, cached]], shards), prev: make([]retiring, shards),
		cfg: cache.Config[string]{Capacity: capacity, MaxStaleness: staleness}, changed: make(chan struct{}), log: discardLogger, panics: new(atomic.Uint64), now: time.Now}
	for i := range ct.caches {
		c, err := cache.New[string, cached](ct.cfg)
		if err != nil {
			return nil, err
		}
		ct.caches[i].Store(c)
	}
	ct.ctx, ct.stop = context.WithCancel(context.Background())
	return ct, nil
}

// followMemkv keeps each cache fresh from its memkv shard's change feed.
func (ct *cacheTier) followMemkv(b *memkvBackend) {
	// Read at each use: tests set the backend's clock after the start.
	ct.now = func() time.Time { return b.now() }
	for i, st := range b.stores {
		// Subscribed here, before the gateway serves: a fill before the
		// subscription, then a write to the store behind the gateway's back,
		// would be in no feed, and later checkpoints would vouch for it.
		sub := st.Subscribe()
		ct.wg.Go(func() { ct.followStore(ct.ctx, i, st, sub) })
		ct.wg.Go(func() { every(ct.ctx, ct.memkvCheckpointPeriod, ct.boundChanged, func() { st.Checkpoint() }) })
	}
}

// reset replaces shard i's cache with an empty one: events were lost, so
// entries may miss invalidations. An empty cache reflects every change.
// The replaced cache's stats are still read for retireGrace (prev), then
// added to the retired totals: read once at the swap, they lost the hits and
// misses of reads that had taken the cache just before it.
func (ct *cacheTier) reset(i int) {
	ct.mu.Lock() // held throughout, so that setConfig cannot slip in between
	defer ct.mu.Unlock()
	c, err := cache.New[string, cached](ct.cfg)
	if err != nil {
		return
	}
	old := ct.caches[i].Swap(c)
	ct.resets.Add(1)
	ct.retireLocked(i) // the one replaced before: its reads are long done
	t := time.AfterFunc(retireGrace, func() {
		ct.mu.Lock()
		defer ct.mu.Unlock()
		if ct.prev[i].c == old {
			ct.retireLocked(i)
		}
	})
	ct.prev[i] = retiring{c: old, t: t}
}

// retireLocked moves the stats of shard i's replaced cache, if any, to the
// retired totals; ct.mu is held.
func (ct *cacheTier) retireLocked(i int) {
	p := ct.prev[i]
	if p.c == nil {
		return
	}
	p.t.Stop()
	if ct.retired == nil {
		ct.retired = map[string]uint64{}
	}
	addStats(ct.retired, p.c.Stats())
	ct.prev[i] = retiring{}
}

// memkvCheckpointPeriod is how often a memkv shard checkpoints its feed: a
// quarter of the staleness bound in force, at least 1 ms.
func (ct *cacheTier) memkvCheckpointPeriod() time.Duration {
	return max(ct.config().MaxStaleness/4, time.Millisecond)
}

// every calls f every period() until ctx ends: a memkv shard's checkpoints,
// a Redis shard's markers, so that an idle shard still renews the bound.
// period is read again after each call, and at once when changed's channel
// closes (a staleness bound changed at runtime, the cache.max_staleness
// knob): a cadence kept from the bound at start would, after the bound was
// lowered well below it, leave most hits past the bound (read through), and
// one read only at the next tick would do so for up to a quarter of the old
// bound (15 minutes after 1 h was lowered). A shorter period also calls f at
// once, so the entries vouched for by the last call, which may be older than
// the new bound, are vouched for again. changed may be nil. Its channel is
// taken before the first period is read, as after each change: taken after,
// a change between the two was missed until the first tick of the old
// cadence.
func every(ctx context.Context, period func() time.Duration, changed func() <-chan struct{}, f func()) {
	var ch <-chan struct{}
	if changed != nil {
		ch = changed()
	}
	cur := period()
	tick := time.NewTicker(cur)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ch:
			ch = changed()
			if p := period(); p != cur {
				if p < cur {
					f()
				}
				cur = p
				tick.Reset(cur)
			}
		case <-tick.C:
			f()
			if p := period(); p != cur {
				cur = p
				tick.Reset(cur)
			}
		}
	}
}

// followStore applies shard i's memkv change feed, from sub on, to its cache
// until ctx ends. After an overflow it subscribes again before it empties the
// cache, so that no fill lands between the two outside every subscription,
// and logs the loss, at most one warning per 10 s (feedLosses): the feed is
// back at once, so one line says both.
func (ct *cacheTier) followStore(ctx context.Context, i int, st *memkv.Store, sub *memkv.Subscription) {
	var fl feedLosses
	for {
		err := ct.apply(ctx, i, sub)
		sub.Close()
		if ctx.Err() != nil {
			return
		}
		sub = st.Subscribe()
		if errors.Is(err, memkv.ErrOverflow) {
			ct.reset(i)
			if warn, unlogged := fl.failed(true, time.Now()); warn {
				ct.log.Warn("caching tier: a shard's change feed fell behind and was cut off; subscribed again, its cache was emptied",
					"shard", i, "err", err, "unlogged_losses", unlogged)
			}
		}
	}
}

// apply hands shard i's memkv events to its cache until the subscription
// fails or ctx ends: each time it wakes, the events already buffered too, in
// one Apply call (up to feedApplyBatch), which looks runs of invalidations up
// ahead. A memkv event's key never changes, so the cache's events share its
// bytes (Apply keeps no key anyway).
func (ct *cacheTier) apply(ctx context.Context, i int, sub *memkv.Subscription) error {
	var buf [feedApplyBatch]cache.Event[string, cached]
	for {
		ev, err := sub.Next(ctx)
		if err != nil {
			return err
		}
		evs := buf[:0]
		for {
			if e, ok := memkvCacheEvent(ev); ok {
				evs = append(evs, e)
			}
			if len(evs) == cap(evs) {
				break // the rest wait for the next round
			}
			var ok bool
			if ev, ok, err = sub.TryNext(); !ok {
				break // none buffered, or err
			}
		}
		ct.caches[i].Load().Apply(evs...)
		clear(evs)
		if err != nil {
			return err
		}
	}
}

// memkvCacheEvent is the cache's event for a memkv feed event: a write
// invalidates its key (sharing the event's bytes: Apply keeps no key), a
// checkpoint renews the bound from its cut, so that the follower's lag
// behind the store does not stretch the bound.
func memkvCacheEvent(ev memkv.Event) (cache.Event[string, cached], bool) {
	switch ev.Kind {
	case memkv.EventWrite:
		return cache.Event[string, cached]{Kind: cache.Write, Key: argString(ev.Key), Version: ev.Version}, true
	case memkv.EventCheckpoint:
		return cache.Event[string, cached]{Kind: cache.Checkpoint, Version: ev.Version, Cut: ev.At}, true
	}
	return cache.Event[string, cached]{}, false
}

// get reads key on shard through the cache; load fetches it on a miss.
func (ct *cacheTier) get(ctx context.Context, shard int, key string, load func(context.Context) (opResult, error)) (opResult, error) {
	c := ct.caches[shard].Load()
	fill := func(ctx context.Context) (_ cached, err error) {
		defer recoverTo(&err, ct.panics, ct.log, "a fill of the caching tier")
		r, err := load(ctx)
		if err == nil && r.err != nil {
			err = r.err
		}
		return cached{value: r.value, found: r.found, expireAt: r.expireAt}, err
	}
	// A TTL that ran out makes no feed event: the cache drops that entry and
	// counts the read as a miss, not a hit, before it loads.
	v, err := c.GetValid(ctx, key, ct.live, fill)
	// A GET that joined another's fill may have started after the value the
	// fill read expired: it reads the key as absent, as a fill of its own
	// would (one clock reading, only for a value with a TTL).
	if v.found && !ct.live(v) {
		v = cached{}
	}
	return v.result(), err
}

// live reports whether a cached value's TTL, if any, has not run out by the
// tier's clock (ct.now): the wall clock judged a memkv value whose store's
// clock was apart from it, so a GET through the tier served a value its
// store had expired, or answered null for one its store still served.
func (ct *cacheTier) live(v cached) bool {
	return v.expireAt == 0 || ct.now().UnixNano() < v.expireAt
}

// getMany reads keys on shard through the cache; load fetches the keys it
// misses, all at once. Its load is not shared with concurrent reads of the
// same keys (cache.GetMany).
func (ct *cacheTier) getMany(ctx context.Context, shard int, keys []string, load func(context.Context, []string) ([]opResult, error)) ([]opResult, error) {
	vals := make([]cached, len(keys))
	missed := ct.lookupMany(shard, keys, vals, nil)
	out := make([]opResult, len(keys))
	for i, v := range vals {
		out[i] = v.result()
	}
	if len(missed) == 0 {
		return out, nil
	}
	rs, err := ct.fillMissed(ctx, shard, keys, missed, load)
	if err != nil {
		return nil, err
	}
	for j, i := range missed {
		out[i] = rs[j]
	}
	return out, nil
}

// result is a cached value as a GET's result.
func (v cached) result() opResult { return opResult{value: v.value, found: v.found} }

// fillMissed loads keys[i] for each i of missed (lookupMany's misses), with
// one call of load, and fills shard's cache with them (fillMany). The i-th
// result answers keys[missed[i]].
func (ct *cacheTier) fillMissed(ctx context.Context, shard int, keys []string, missed []int, load func(context.Context, []string) ([]opResult, error)) ([]opResult, error) {
	miss := make([]string, len(missed))
	for j, i := range missed {
		// keys may share their commands' bytes (runPlain, argString); the
		// cache keeps the keys it fills, and must not keep a whole read's
		// buffer alive for each.
		miss[j] = strings.Clone(keys[i])
	}
	return ct.fillMany(ctx, shard, miss, load)
}

// getOps returns a GET op for each of keys.
func getOps(keys []string) []op {
	ops := make([]op, len(keys))
	for i, k := range keys {
		ops[i] = op{kind: opGet, key: k}
	}
	return ops
}

// setConfig changes capacity and staleness bound on every shard's cache
// (control knobs). A change of the bound wakes the checkpoint and marker
// loops (every), which take the period of the new bound at once.
func (ct *cacheTier) setConfig(f func(*cache.Config[string])) error {
	ct.mu.Lock()
	defer ct.mu.Unlock()
	cfg := ct.cfg
	f(&cfg)
	for i := range ct.caches {
		if err := ct.caches[i].Load().SetConfig(cfg); err != nil {
			return err
		}
	}
	if cfg.MaxStaleness != ct.cfg.MaxStaleness {
		close(ct.changed)
		ct.changed = make(chan struct{})
	}
	ct.cfg = cfg
	return nil
}

// boundChanged returns a channel closed at the next change of the staleness
// bound.
func (ct *cacheTier) boundChanged() <-chan struct{} {
	ct.mu.Lock()
	defer ct.mu.Unlock()
	return ct.changed
}

func (ct *cacheTier) config() cache.Config[string] {
	ct.mu.Lock()
	defer ct.mu.Unlock()
	return ct.cfg
}

// contains reports whether shard's cache holds key within its bound (counts
// nothing; the read that follows counts the hit).
func (ct *cacheTier) contains(shard int, key string) bool {
	return ct.caches[shard].Load().Contains(key)
}

// containsAll reports whether shard's cache holds the keys of ops[idx]
// (counts nothing).
func (ct *cacheTier) containsAll(shard int, ops []op, idx []int) bool {
	c := ct.caches[shard].Load()
	for _, i := range idx {
		if !c.Contains(ops[i].key) {
			return false
		}
	}
	return true
}

// lookupMany looks keys up in shard's cache, once each: it stores the hits'
// values in vals (as long as keys) and appends to missed the indexes of the
// keys to load, which it returns. A value whose TTL ran out is dropped and
// counted as a miss (expiry makes no feed event).
func (ct *cacheTier) lookupMany(shard int, keys []string, vals []cached, missed []int) []int {
	var now int64 // read once, at the first value with a TTL
	return ct.caches[shard].Load().LookupManyValid(keys, vals, missed, func(v cached) bool {
		if v.expireAt == 0 {
			return true
		}
		if now == 0 {
			now = ct.now().UnixNano()
		}
		return now < v.expireAt
	})
}

// fillMany loads keys (misses of lookupMany) with one call of load and fills
// shard's cache with them (cache.FillMany: no stale sets). A key whose result
// carries its own error (WRONGTYPE in a batch mixed with writes) fails alone:
// the load stores nothing, but every key gets its own result, as without the
// tier; a pipelined run's GETs of one shard share this load, and a GET must
// not answer another key's error.
func (ct *cacheTier) fillMany(ctx context.Context, shard int, keys []string, load func(context.Context, []string) ([]opResult, error)) ([]opResult, error) {
	var rs []opResult
	keyErr := false
	_, err := ct.caches[shard].Load().FillMany(ctx, keys, func(ctx context.Context, keys []string) (_ []cached, err error) {
		defer recoverTo(&err, ct.panics, ct.log, "a fill of the caching tier")
		if rs, err = load(ctx, keys); err != nil {
			return nil, err
		}
		out := make([]cached, len(rs))
		for i, r := range rs {
			if r.err != nil {
				keyErr = len(rs) == len(keys) // one result per key to answer with
				return nil, r.err             // stores nothing
			}
			out[i] = cached{value: r.value, found: r.found, expireAt: r.expireAt}
		}
		return out, nil
	})
	if err != nil && !keyErr {
		return nil, err
	}
	return rs, nil
}

// invalidate drops key after a write through the gateway.
func (ct *cacheTier) invalidate(shard int, key string) {
	ct.caches[shard].Load().Delete(key)
}

// invalidateBatch is invalidateAll's longest run: what the cache looks up
// ahead at once, and a small array on the stack of a connection's goroutine,
// which runs it.
const invalidateBatch = 16

// invalidateAll is invalidate of every key of keys, handed to each shard's
// cache in runs (cache.Apply looks a run's keys up ahead).
func (ct *cacheTier) invalidateAll(keys []shardKey) {
	var evs [invalidateBatch]cache.Event[string, cached]
	for sh := range ct.caches {
		n := 0
		for _, k := range keys {
			if k.shard != sh {
				continue
			}
			evs[n] = cache.Event[string, cached]{Kind: cache.Delete, Key: k.key}
			if n++; n == len(evs) {
				ct.caches[sh].Load().Apply(evs[:n]...)
				n = 0
			}
		}
		if n > 0 {
			ct.caches[sh].Load().Apply(evs[:n]...)
		}
	}
}

// stats sums the shards' cache stats, those of replaced caches included. It
// holds mu throughout: a reset between the retired totals and the live
// caches would leave the replaced cache's counts out of both, and the
// counters would go back.
func (ct *cacheTier) stats() map[string]uint64 {
	out := map[string]uint64{}
	ct.mu.Lock()
	defer ct.mu.Unlock()
	for k, v := range ct.retired {
		out[k] = v
	}
	for i := range ct.caches {
		addStats(out, ct.caches[i].Load().Stats())
		if p := ct.prev[i].c; p != nil {
			addStats(out, p.Stats())
		}
	}
	out["hits"] += ct.sharedHits.Load()
	out["misses"] += ct.sharedMisses.Load()
	out["resets"] = ct.resets.Load()
	return out
}

// countShared counts the GETs of a pipeline run's part that the cache was
// not asked about: identical GETs of a run share one op, looked up once
// (lookupMany), so without this a run of 16 GETs of a key counted one hit
// where 16 GETs one at a time count 16. Each counts as the lookup it shared
// did: shared holds the index in ops of each one's op, gpos the index in
// ops of each key looked up, missed the indexes in gpos of the misses (both
// in ascending order).
func (ct *cacheTier) countShared(gpos, missed, shared []int) {
	var hits, misses uint64
	for _, pos := range shared {
		i, _ := slices.BinarySearch(gpos, pos)
		if _, miss := slices.BinarySearch(missed, i); miss {
			misses++
		} else {
			hits++
		}
	}
	ct.sharedHits.Add(hits)
	ct.sharedMisses.Add(misses)
}

func addStats(out map[string]uint64, s cache.Stats) {
	out["hits"] += s.Hits
	out["misses"] += s.Misses
	out["loads"] += s.Loads
	out["invalidations"] += s.Invalidations
	out["dropped_fills"] += s.DroppedFills
	out["stale_bypass"] += s.StaleBypass
}

// Close stops the feed followers, and the timers of the replaced caches.
func (ct *cacheTier) Close() {
	ct.stop()
	ct.wg.Wait()
	ct.mu.Lock()
	defer ct.mu.Unlock()
	for i := range ct.prev {
		ct.retireLocked(i)
	}
}
