package cache

import (
	"context"
	"hash/maphash"
	"math"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tierkit/tierkit/coalesce"
)

// Cache is a bounded, concurrent, read-through cache kept fresh by a change
// stream. Create it with [New]; all methods are safe for concurrent use. A Cache
// must not be copied after first use.
//
// The index is split in 64 shards, each a hash table that readers search
// without locking: a hit finds its entry with no lock and records the access
// in a lossy buffer of the reader's stripe (a lock it only tries), which the
// eviction policy drains in batches. The hit that fills its buffer replays
// it if the policy lock is free, and then admits the inserts deferred
// meanwhile: their evictions take the victims' shard locks, so that one hit
// may wait for the writers of those shards.
// Writes (fills, [Cache.Set], invalidations) take the key's shard lock; an
// insert then takes the policy lock if it is free, or else leaves the new node
// in its stripe for the lock's holder to admit.
type Cache[K comparable, V any] struct {
	seed  maphash.Seed
	clock Clock
	base  time.Time // clock reading at New: entry and checkpoint times are offsets from it
	cfg   atomic.Pointer[Config[K]]

	salt    uint64  // seeds the integer key hash
	kind    keyKind // how hash reads K
	word    bool    // whether V is held in the entries' bits (value.go)
	shards  [numShards]shard[K, V]
	stripes []stripe[K]
	smask   uint32
	// stripeSalt is mixed into the stack address that picks a goroutine's
	// stripe (stripeOf). It changes when a stripe's lock tries keep failing
	// (contended), so that goroutines that picked the same stripe and keep
	// running, a pool of workers, do not share it for good. Written rarely.
	stripeSalt atomic.Uint64
	// sampleShift is 0, or the shift of the hit sampling while the cache
	// samples hits (sample.go). Read by every hit, written rarely.
	sampleShift atomic.Uint32
	// deferred counts the new nodes waiting in stripes for the policy lock
	// (admit): whoever releases the lock next adds them.
	deferred atomic.Int64
	// tries.failed says whether a lock try failed since the last drain
	// (sample.go), on a line of its own: only contention writes it, and
	// every hit reads the fields above.
	tries struct {
		_      [cacheLine]byte
		failed atomic.Bool
		_      [cacheLine]byte
	}
	flights coalesce.Group[K, loaded[V]]

	lastCheckpoint atomic.Int64  // offset of the newest checkpoint (unvouched before the first)
	watermark      atomic.Uint64 // newest checkpoint watermark
	// ownsChanges counts the SetConfigs that set, replaced or removed Owns
	// (bumped before the config is stored): a fill across one stores
	// nothing, even when the configurations at its two ends both lack Owns
	// (ownsEnding).
	ownsChanges atomic.Uint64

	mu  sync.Mutex // protects pol
	pol policy[K]

	stats counters
}

// entry is what the index maps a key to: the key, its value and the value's
// provenance, and the key's node in the eviction policy. A hit reads only the
// entry (and its bucket): the policy's node is passed on by pointer, and only
// the policy's replay, under its lock, reads it. Readers take no lock; writers
// hold the key's shard lock (value.go says how the value is updated).
type entry[K comparable, V any] struct {
	key     K
	hash    uint64
	p       *node[K]      // the key's place in the policy; the same for every entry of the key until it is evicted or removed
	freshAt atomic.Int64  // clock offset at which the value was known current; unvouched when only checkpoints vouch for it (a refill, or a value stored without a bound)
	val     V             // other values: the value, never changed once the entry is in the index
	bits    atomic.Uint64 // word values: the value, updated in place
	version uint64        // CDC version the value reflects (0 when unknown: loaded or Set); shard lock
}

// node is a key's place in the eviction policy: its queue links, written
// under the policy lock, and the key and hash the policy needs to count and
// evict it. Readers never load it: a hit buffers the pointer, and the policy
// reads the node when it replays the hit. So the list moves that replays make
// write lines that no reader on another core loads, and a hit costs one
// memory read less than with the links next to the value.
type node[K comparable] struct {
	prev, next *node[K] // policy lock
	key        K
	hash       uint64
	queue      queueID // policy lock
	// saturated is the sketch epoch in which an access found all of the
	// key's counters at their maximum (policy lock): until the sketch's next
	// reset, an increment for the key would change nothing, so access skips
	// it. 0 never matches (epochs start at 1).
	saturated uint32
	dead      atomic.Bool // set under the policy lock when evicted or removed
}

// loaded is a fill's result as shared by coalesce: the value and the clock
// offset at which the fill started (the value is at least that fresh), and
// ran, set by every fill that returned, so that a caller that got a result
// is told from one that left (whose zero loaded has it false) even when the
// load's error is the one its context reports.
type loaded[V any] struct {
	val V
	at  int64
	ran bool
}

// item is a value to store, with its provenance (see entry).
type item[V any] struct {
	val     V
	version uint64
	freshAt int64
}

const (
	shardBits = 6
	numShards = 1 << shardBits
)

// shard is one slice of the index. Its lock serialises the writers of its keys
// (readers take none) and guards their in-flight fills, so a fill can tell
// whether its key was invalidated after it started.
//
// The readers' word (the index's table) has a cache line of its own; the
// writers' fields (the index's count, mu, seq, fills) share the next one.
type shard[K comparable, V any] struct {
	ix    index[K, V] // written under mu, read without it
	mu    sync.Mutex
	seq   uint64       // protected by mu: bumped by every invalidation in the shard
	fills map[K]*fills // protected by mu: keys with fills in flight or recently done
	// records is len(fills), written under mu and read without it by
	// invalidate's fast path (see there).
	records atomic.Int32
	// unlinking counts the shard's nodes an eviction marked dead whose
	// entries unlink has not yet taken out of the index: incremented under
	// the policy lock before the mark, decremented under mu after the
	// removal. While it is 0 no entry in the index has an evicted node, so a
	// store under mu skips loading the node (storeLocked): a line that the
	// policy's replays write on the other core, and the largest single cost
	// of an update after the index lookup.
	unlinking atomic.Int32
	// sweepAt is the number of fill records at which the next sweep runs
	// (at least sweepFills), sweeps counts the sweeps, and fillsPeak is the
	// most records fills has held since it was last made; all protected by
	// mu.
	sweepAt   int32
	sweeps    uint32
	fillsPeak int32
	_         [cacheLine]byte
}

// fills tracks the fills of one key: those in flight, and whether a finished
// one may still be joinable in the coalesce group.
type fills struct {
	active      int    // fills in flight
	invalidated uint64 // shard seq of the newest invalidation of the key
}

// New returns a cache configured by cfg, or an error wrapping [ErrInvalidConfig]
// (and [ErrCapacity] or [ErrStaleness]) if cfg is invalid. It starts no
// goroutine.
func New[K comparable, V any](cfg Config[K]) (*Cache[K, V], error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	c := &Cache[K, V]{seed: maphash.MakeSeed(), salt: rand.Uint64(), kind: kindOf[K](), word: isWord[V](), clock: cfg.Clock}
	if c.clock == nil {
		c.clock = systemClock{}
	}
	c.base = c.clock.Now()
	n := 1 << bits.Len(uint(min(max(8*runtime.GOMAXPROCS(0), 16), 64)-1))
	c.stripes = make([]stripe[K], n)
	c.smask = uint32(n - 1)
	c.pol.init(cfg.capacity(), c.salt)
	c.lastCheckpoint.Store(unvouched)
	cfg.Clock = c.clock
	c.cfg.Store(&cfg)
	return c, nil
}

// Get returns the value of key, loading it with load on a miss.
//
// A hit is served from memory (if key is owned and the entry is within the
// staleness bound). On a miss, concurrent Gets of the same key share one call of
// load (the fill lock, built on [coalesce.Group]): a thundering herd makes one
// backend load. The loaded value is stored unless the key was invalidated, Set or
// deleted after the load started (a stale fill loses, see [Cache.Apply]), or the
// key is not owned when the load ends or was not when the read that started
// the load asked, or a [Cache.SetConfig] with an Owns came while it ran (see
// Ownership in the package doc).
//
// load runs on a context that keeps ctx's values and is cancelled when every
// caller waiting for it has left, or once load has returned (load must not use
// it after). When ctx ends first, Get returns ctx.Err() at
// once and the load goes on for the others. Errors from load are returned as is
// and nothing is stored: the caller decides whether to retry. A panic in load,
// or a runtime.Goexit, stores nothing and reaches every caller waiting for it
// as a *[coalesce.PanicError] (matching [coalesce.ErrGoexit] for Goexit), as
// coalesce delivers it; a caller on whose goroutine a Goexiting load ran
// exits with it, as Goexit demands.
func (c *Cache[K, V]) Get(ctx context.Context, key K, load func(context.Context) (V, error)) (V, error) {
	cfg := c.cfg.Load()
	owned := cfg.Owns == nil || cfg.Owns(key)
	if owned {
		if v, ok := c.lookup(cfg, key); ok {
			return v, nil
		}
	} else {
		c.stats.notOwned.Add(1)
	}
	return c.loadShared(ctx, cfg, key, owned, load)
}

// loadShared is the rest of Get after its lookup missed: it joins or starts
// the key's load. owned is whether the read found key owned: a load it
// starts for a key not owned stores nothing, even if the key is owned by the
// time the load ends.
func (c *Cache[K, V]) loadShared(ctx context.Context, cfg *Config[K], key K, owned bool, load func(context.Context) (V, error)) (V, error) {
	var asked int64
	if cfg.MaxStaleness > 0 {
		asked = c.now()
	}
	var led atomic.Bool
	res, err := c.flights.Do(ctx, key, func(ctx context.Context) (loaded[V], error) {
		led.Store(true)
		return c.fill(ctx, key, owned, load)
	})
	if !led.Load() && stayed(ctx, res, err) { // shared a flight, did not just leave
		if err == nil && cfg.MaxStaleness > 0 && !within(asked, res.at, cfg.MaxStaleness) {
			// The shared load started more than the bound before this read
			// (a load slower than the bound): its value may be staler than the
			// contract allows, so this caller loads again, through the group:
			// that flight has finished, so one found now started after this
			// read asked (fresh enough), and the caller can leave it when ctx
			// ends, as Get promises. It counts as a load if it leads the new
			// flight and as Coalesced if it joins one, not for the first.
			c.stats.staleBypass.Add(1)
			led.Store(false)
			res, err = c.flights.Do(ctx, key, func(ctx context.Context) (loaded[V], error) {
				led.Store(true)
				return c.fill(ctx, key, owned, load)
			})
			if !led.Load() && stayed(ctx, res, err) {
				c.stats.coalesced.Add(1)
			}
			return res.val, err
		}
		c.stats.coalesced.Add(1)
	}
	return res.val, err
}

// stayed reports whether a Do of a fill returned the flight's outcome rather
// than ctx's end: a result the fill returned, or its panic. A load's error
// equal to ctx.Err() (a loader's own call cancelled as the caller's context
// ended) is no sign that the caller left.
func stayed[V any](ctx context.Context, res loaded[V], err error) bool {
	return res.ran || err == nil || err != ctx.Err()
}

// TryGet returns the cached value of key and true, or false when key is absent,
// not owned, or beyond the staleness bound. It never loads, nor waits for a
// load; but like any hit, the one that fills its stripe's buffer replays it
// and admits the inserts deferred meanwhile, and may wait for the shard
// locks of the entries they evict (see Concurrency in the package doc).
func (c *Cache[K, V]) TryGet(key K) (V, bool) {
	cfg := c.cfg.Load()
	if cfg.Owns != nil && !cfg.Owns(key) {
		c.stats.notOwned.Add(1)
		var zero V
		return zero, false
	}
	return c.lookup(cfg, key)
}

// Contains reports whether TryGet would return a value for key now: it is
// cached, owned and within the staleness bound. It counts nothing and records
// no access, so a host can decide how to serve a read (inline on a hit, on
// another goroutine for a load) and then read it with Get or TryGet, which
// count it once.
func (c *Cache[K, V]) Contains(key K) bool {
	cfg := c.cfg.Load()
	if cfg.Owns != nil && !cfg.Owns(key) {
		return false
	}
	h := c.hash(key)
	cp := c.checkpointBefore(cfg)
	e := c.shards[h&(numShards-1)].ix.get(key, h)
	if e == nil {
		return false
	}
	_, freshAt := c.load(e)
	return cfg.MaxStaleness <= 0 || c.fresh(cfg.MaxStaleness, cp, freshAt)
}

// Set stores value for key as current (it is vouched fresh as of now), if key is
// owned. A fill of key in flight when Set is called will not overwrite it. A
// key not owned stores nothing, but is invalidated as by Delete: a value cached
// while it was owned, or a fill that started before the Set, must not be served
// once it is owned again (see No stale sets in the package doc).
// A new entry is admitted to the eviction policy before Set returns, unless
// another goroutine holds the policy at that moment: then that goroutine admits
// it (and evicts) when it lets go (see Eviction in the package doc).
// A Set across a [Cache.SetConfig] that sets, replaces or removes Owns (one
// that comes between its Owns check and its store) stores nothing and
// invalidates the key, as for a key not owned: the key may have been handed
// away, and a host that Deletes the keys it gives up may have done so
// before the store (see Ownership in the package doc).
// Set carries no version: a change event for key applied after it replaces
// or drops its value, whatever the event's version (a refill that is older
// than the Set's value included; like any refill, it is vouched only by a
// later checkpoint, so the staleness bound still holds).
func (c *Cache[K, V]) Set(key K, value V) {
	owns := c.ownsChanges.Load() // before cfg: see ownsEnding
	cfg := c.cfg.Load()
	if cfg.Owns != nil && !cfg.Owns(key) {
		c.invalidate(key, 0)
		return
	}
	h := c.hash(key)
	s := &c.shards[h&(numShards-1)]
	// The time before the lock: Clock is the caller's code, and a panic in
	// it under the lock would leave every writer of the shard blocked.
	it := item[V]{val: value, freshAt: c.vouchTime(cfg)}
	s.mu.Lock()
	c.invalidateFillsLocked(s, key)
	if c.ownsChanges.Load() != owns {
		// A SetConfig with an Owns came since Owns was asked: the key may
		// have been handed away, and the Delete of a host that drops what it
		// gave up may have come before this store. Invalidate, as for a key
		// not owned.
		if e := s.ix.get(key, h); e != nil {
			c.dropLocked(s, e)
			return
		}
		s.mu.Unlock()
		return
	}
	n, added := c.storeLocked(s, key, h, it)
	s.mu.Unlock()
	c.settle(n, added)
}

// Delete removes key, and makes any fill of key in flight lose. It reports
// whether an entry was removed. Like Apply, it keeps no reference to key.
func (c *Cache[K, V]) Delete(key K) bool {
	return c.invalidate(key, 0)
}

// Len returns the number of cached entries. It first hands the policy the
// entries whose admission was deferred (see [Cache.Set]), so it never exceeds
// the capacity.
func (c *Cache[K, V]) Len() int {
	c.mu.Lock()
	c.drainAddsLocked()
	n := c.pol.size
	c.unlockPolicy()
	return n
}

// SetConfig validates cfg and swaps it in atomically (Clock is ignored). A lower
// Capacity evicts at once. When cfg or the current configuration has an Owns,
// even the same one, the loads and Sets of keys in flight store nothing (see
// [Config.Owns]). For an invalid cfg it returns an error wrapping
// [ErrInvalidConfig] (and [ErrCapacity] or [ErrStaleness]), and nothing
// changes.
func (c *Cache[K, V]) SetConfig(cfg Config[K]) error {
	if err := cfg.validate(); err != nil {
		return err
	}
	cfg.Clock = c.clock
	c.mu.Lock()
	c.drainLocked()
	c.pol.setCapacity(cfg.capacity())
	if cfg.Owns != nil || c.cfg.Load().Owns != nil {
		c.ownsChanges.Add(1) // before the store: see ownsEnding
	}
	c.cfg.Store(&cfg)
	c.unlockPolicy()
	return nil
}

// Config returns the current configuration.
func (c *Cache[K, V]) Config() Config[K] { return *c.cfg.Load() }

// lookup returns the entry's value if it is present and within the bound.
func (c *Cache[K, V]) lookup(cfg *Config[K], key K) (V, bool) {
	return c.lookupHashed(cfg, key, c.hash(key))
}

// lookupHashed is lookup of a key whose hash h is known.
func (c *Cache[K, V]) lookupHashed(cfg *Config[K], key K, h uint64) (V, bool) {
	cp := c.checkpointBefore(cfg)
	e := c.shards[h&(numShards-1)].ix.get(key, h)
	st := c.stripeOf()
	if e != nil {
		v, freshAt := c.load(e)
		if cfg.MaxStaleness <= 0 || c.fresh(cfg.MaxStaleness, cp, freshAt) {
			c.recordHit(st, e.p, true)
			return v, true
		}
		c.stats.staleBypass.Add(1)
	}
	st.misses.Add(1)
	var zero V
	return zero, false
}

// checkpointBefore returns the newest checkpoint's time, to be read before
// the entry it vouches for (0 without a bound, which reads no checkpoint).
// The order matters: a checkpoint read after the entry may cover an
// invalidation of that entry applied in between, so it would vouch for a
// value the cache no longer held, one that a checkpoint read first could
// not have covered (the stream applies a key's change before the
// checkpoint that covers it, and a reader that sees the checkpoint then
// sees the change).
func (c *Cache[K, V]) checkpointBefore(cfg *Config[K]) int64 {
	if cfg.MaxStaleness <= 0 {
		return 0
	}
	return c.lastCheckpoint.Load()
}

// fresh reports whether a value vouched fresh at freshAt, read after the
// checkpoint at cp (checkpointBefore), may be served under the staleness
// bound.
func (c *Cache[K, V]) fresh(bound time.Duration, cp, freshAt int64) bool {
	return within(c.now(), max(cp, freshAt), bound)
}

// within reports whether the clock offset at is at most bound before now.
// It compares without overflow: now minus at overflowed once now was far
// past New, and served values only checkpoints vouch for, with none
// applied. Unvouched is never within: now minus any bound is above it. A
// now of the largest int64 is a clock 292 years or more past New, where
// time.Sub saturates: every reading since is that same offset, so no time
// is known to be within the bound of any other (a value stored then would
// be fresh for good), and reads go through. (A now that wraps when the
// bound is taken off it, a clock gone 292 years back, is not within
// either.)
func within(now, at int64, bound time.Duration) bool {
	return now < math.MaxInt64 && now-int64(bound) <= at
}

// vouchTime returns now for a value known current now, when a staleness bound
// is set; without one it skips the clock read and returns unvouched, so the
// value is vouched for by checkpoints only, should a bound be set later
// (conservative), as a refilled value is.
func (c *Cache[K, V]) vouchTime(cfg *Config[K]) int64 {
	if cfg.MaxStaleness <= 0 {
		return unvouched
	}
	return c.now()
}

// unvouched is the time vouching for a value that only checkpoints vouch
// for (a refill, or any value stored without a bound), and lastCheckpoint's
// until the first checkpoint: the smallest offset, which no bound reaches
// (see within). It was once 146 years before New, and a bound longer than
// that served refilled values before any checkpoint.
//
// The creation of the cache is no checkpoint for a refilled value: it
// vouches for an empty cache, and for values loaded or Set since (their own
// times are later anyway), but a stream that starts behind the store (a
// consumer resuming from an old offset) refills keys with versions older
// than what the cache loaded, and only a checkpoint says it has caught up.
const unvouched int64 = math.MinInt64

// now returns the clock's offset from base in nanoseconds.
func (c *Cache[K, V]) now() int64 { return int64(c.clock.Now().Sub(c.base)) }

// storeLocked stores it for key: as the new value of the key's entry when key
// is cached (update), else in a new entry and policy node (added). It returns
// the key's node. The caller holds s.mu, and must pass the result to settle
// after releasing it, so that no writer of the shard waits while the policy
// drains or evicts.
func (c *Cache[K, V]) storeLocked(s *shard[K, V], key K, h uint64, it item[V]) (n *node[K], added bool) {
	if old := s.ix.get(key, h); old != nil {
		if !s.evictedLocked(old) {
			// A concurrent eviction may be removing this entry; then the store
			// is lost as if evicted right after, which a cache may always do.
			c.update(s, old, it)
			return old.p, false
		}
		s.ix.remove(old) // evicted, its unlink not done yet
	}
	n = &node[K]{key: key, hash: h}
	s.ix.put(c.newEntry(key, h, n, it))
	return n, true
}

// evictedLocked reports whether e's node was evicted and e awaits its
// unlink. The caller holds s.mu; e is in s's index, and an entry whose node
// an invalidation marked dead is never there (dropLocked removes it under
// s.mu).
func (s *shard[K, V]) evictedLocked(e *entry[K, V]) bool {
	return s.unlinking.Load() != 0 && e.p.dead.Load()
}

// settle tells the policy about a store, outside the shard lock: an update in
// place is buffered as an access (whose buffer may fill and drain), a new node
// is admitted. Nil is a no-op.
func (c *Cache[K, V]) settle(n *node[K], added bool) {
	switch {
	case n == nil:
	case added:
		c.admit(n)
	default:
		c.recordHit(c.stripeOf(), n, false)
	}
}

// invalidate removes key unless its entry reflects a newer version (version 0
// always removes), and makes its in-flight fills lose. It reports whether an
// entry was removed.
//
// Most invalidations in a cache tier are of keys it does not hold (a write
// to a key nobody read lately), and when the key's shard has no fill record
// either there is nothing to do: it returns without the shard lock. That is
// safe because a fill registers (startFill, a record) before it loads and
// keeps its record until after it stored: a fill that registered before this
// check is seen by it (records > 0), and its entry, if stored and swept
// since, is seen by the index lookup after it (the sweep's store of records
// follows the entry's store under the lock); a fill that registers after the
// check loads after the invalidated write and may store what it reads.
func (c *Cache[K, V]) invalidate(key K, version uint64) bool {
	return c.invalidateHashed(key, c.hash(key), version)
}

// invalidateHashed is invalidate of a key whose hash h is known.
func (c *Cache[K, V]) invalidateHashed(key K, h uint64, version uint64) bool {
	s := &c.shards[h&(numShards-1)]
	if s.records.Load() == 0 && s.ix.get(key, h) == nil {
		return false
	}
	s.mu.Lock()
	c.invalidateFillsLocked(s, key)
	e := s.ix.get(key, h)
	if e == nil || version != 0 && e.version > version {
		s.mu.Unlock()
		return false
	}
	return c.dropLocked(s, e)
}

// dropLocked removes e from s's index and the policy, counts an
// invalidation, and unlocks s.mu, which the caller holds. It reports whether
// it removed the entry: an entry the policy evicted before (its node is
// dead, its unlink not done yet) is taken out of the index but counts as the
// eviction it was, not also as an invalidation.
func (c *Cache[K, V]) dropLocked(s *shard[K, V], e *entry[K, V]) bool {
	s.ix.remove(e)
	c.mu.Lock()
	// Under the policy lock: evictions mark their nodes dead under it.
	evicted := e.p.dead.Load()
	if !evicted {
		c.pol.remove(e.p) // a no-op for a node still deferred: dead, it is skipped
		e.p.dead.Store(true)
	}
	c.mu.Unlock()
	s.mu.Unlock()
	if !evicted {
		c.stats.invalidations.Add(1)
	}
	c.maintain() // nodes deferred while the lock was held (maintain takes no shard lock under it)
	return !evicted
}
