package cache

import (
	"context"
	"math"

	"github.com/tierkit/tierkit/internal/mapshrink"
)

// Fills: a read-through load registers a fill record for its key, so that an
// invalidation racing the load makes its value lose (no stale sets), and the
// record's coalesce call is forgotten once it can no longer be joined safely.

// fill runs load for key and stores the result unless the key was invalidated
// since the fill started, or was not owned when the read that started the
// fill asked (owned false) or when it ends. It runs inside the coalesce call,
// once per flight.
//
// A key that becomes owned while the load runs is not stored: the host's
// stream may have skipped the key's events until then (see Ownership in the
// package doc), so no invalidation would have made a value that predates a
// change lose. For the same reason a fill across a SetConfig that set or
// replaced Owns (a ring swap, perhaps away and back) stores nothing.
func (c *Cache[K, V]) fill(ctx context.Context, key K, owned bool, load func(context.Context) (V, error)) (loaded[V], error) {
	r := c.startFill(key)
	r.unowned = !owned
	c.stats.loads.Add(1)
	ended := false
	defer func() {
		// Clock or load panicked, or load called runtime.Goexit: end the
		// fill, storing nothing (its time is then unused).
		if !ended {
			c.stats.loadErrors.Add(1)
			var zero V
			c.endFill(r, zero, false, 0)
		}
	}()
	// The load's result is at least as fresh as this instant: taken after the
	// fill registered, so an invalidation before it is either seen by the load
	// or bumps the sequence.
	startedAt := c.vouchTime(r.cfg)
	v, err := load(ctx)
	ended = true
	if err != nil {
		c.stats.loadErrors.Add(1)
	}
	c.endFill(r, v, err == nil, startedAt)
	return loaded[V]{val: v, at: startedAt, ran: true}, err
}

// fillRecord is a fill registered by startFill: its key, the key's shard, its
// hash, its fill record and the shard's sequence when it started. It keeps
// its own copy of the key: a bulk loader may rewrite the slice of keys it was
// given (a backend's prefix, a scratch buffer), and the value must be stored
// under the key whose hash and record these are.
type fillRecord[K comparable, V any] struct {
	key   K
	s     *shard[K, V]
	h     uint64
	f     *fills
	start uint64
	// unowned is set when the read that started the fill (or FillMany, when
	// it started) found key not owned: the fill then stores nothing, whatever
	// Owns says at its end.
	unowned bool
	// cfg is the configuration when the fill registered, before its load
	// started: a fill that ends under another one with an Owns stores
	// nothing (ownsEnding).
	cfg *Config[K]
	// owns is Cache.ownsChanges when the fill registered, read before cfg.
	owns uint64
}

// startFill registers a fill of key, so that an invalidation of key while it
// runs makes it lose.
func (c *Cache[K, V]) startFill(key K) fillRecord[K, V] {
	h := c.hash(key)
	s := &c.shards[h&(numShards-1)]
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fills == nil {
		s.fills = make(map[K]*fills)
	}
	f := s.fills[key]
	if f == nil && key != key {
		// A key not equal to itself (a NaN): no lookup, invalidation or
		// sweep could ever find, or delete, its record in the map, so it
		// gets one of its own, outside it. No invalidation can name it.
		f = &fills{}
	} else if f == nil {
		if len(s.fills) >= max(sweepFills, int(s.sweepAt)) {
			c.sweepFillsLocked(s)
		}
		f = &fills{}
		s.fills[key] = f
		s.records.Store(int32(len(s.fills)))
		s.fillsPeak = max(s.fillsPeak, int32(len(s.fills)))
	}
	f.active++
	owns := c.ownsChanges.Load() // before cfg: see ownsEnding
	return fillRecord[K, V]{key: key, s: s, h: h, f: f, start: s.seq, cfg: c.cfg.Load(), owns: owns}
}

// endFill ends a fill registered by startFill and, if ok, stores v (fresh at
// startedAt) unless its key was invalidated, Set or deleted since the fill
// started, or is not owned (or was not when the fill's read asked).
func (c *Cache[K, V]) endFill(r fillRecord[K, V], v V, ok bool, startedAt int64) {
	var (
		stored *node[K]
		added  bool
	)
	owned := !ok || !r.unowned && c.ownsEnding(r) // asked only of a value to store
	r.s.mu.Lock()
	// The record outlives the fill: the coalesce call that ran it stays
	// joinable until it finishes, after this returns, so an invalidation in
	// between must still find the record and Forget the call.
	r.f.active--
	switch {
	case !ok:
	case r.f.invalidated > r.start:
		// An invalidation, Set or Delete of key arrived while the load ran:
		// the value may predate it, so it must not overwrite newer state
		// (guava#1881, otter#137). The callers still get it: it was current
		// when read, and they asked before the invalidation.
		c.stats.droppedFills.Add(1)
	case owned:
		stored, added = c.storeLocked(r.s, r.key, r.h, item[V]{val: v, freshAt: startedAt})
	}
	r.s.mu.Unlock()
	c.settle(stored, added)
}

// ownsEnding asks Config.Owns about the key of a fill that is ending. The
// hook is the caller's code, so it is asked outside the shard lock, and if it
// panics the fill is ended (storing nothing) before the panic goes on: no
// lock stays held and no fill stays in flight for good.
//
// A fill during which SetConfig swapped in or out a configuration with an
// Owns is not owned at its end, whatever the hook says now: ownership may
// have gone away and come back while the load ran (a ring swap and back),
// and the stream of a host that skips the keys it does not own delivered no
// event of the key meanwhile, so nothing made a load older than a write
// made then lose.
//
// The configurations at the fill's two ends do not tell it all: Owns set
// and then removed again leaves both without one. So SetConfig counts the
// changes of Owns in ownsChanges, before it stores the config, and the fill
// compares the count it read before its config with the count read after
// the config now: a change whose count the start missed stored its config
// after the start read cfg, which the pointers tell.
func (c *Cache[K, V]) ownsEnding(r fillRecord[K, V]) bool {
	cfg := c.cfg.Load()
	if cfg != r.cfg && (cfg.Owns != nil || r.cfg.Owns != nil) || c.ownsChanges.Load() != r.owns {
		return false
	}
	if cfg.Owns == nil {
		return true
	}
	asked := false
	defer func() {
		if !asked {
			r.s.mu.Lock()
			r.f.active--
			r.s.mu.Unlock()
		}
	}()
	owns := cfg.Owns(r.key)
	asked = true
	return owns
}

// invalidateFillsLocked makes every fill of key in flight lose, and later
// reads start a new load instead of joining one of them. The caller holds the
// key's shard lock.
//
// Forget is only needed when the key has a fill record: a flight whose fill has
// not registered yet takes its start sequence after this invalidation and
// loads after it, so joining it is safe; a fill that ended keeps its record
// until an invalidation or a sweep Forgets its key. Skipping Forget otherwise
// keeps the coalesce group's lock off the write path.
func (c *Cache[K, V]) invalidateFillsLocked(s *shard[K, V], key K) {
	s.seq++
	if f := s.fills[key]; f != nil {
		f.invalidated = s.seq
		c.flights.Forget(key)
		if f.active == 0 {
			delete(s.fills, key)
			s.records.Store(int32(len(s.fills)))
		}
	}
}

// sweepFills bounds the fill records of a shard: past it, records of finished
// fills are dropped, but not those of keys with a flight in the coalesce group
// (its call may not have finished yet: a later invalidation must find the
// record and Forget it).
//
// A sweep walks every record, so when many fills are in flight in a shard (a
// GetMany of thousands of missed keys, a miss storm on a slow backend), whose
// records a sweep must keep, sweeping at every new fill past sweepFills made n
// fills cost n^2/2 visits under the shard's lock. The next sweep waits until
// the records double from what the last one kept: a sweep's visits are paid
// for by the records added since, and the records of finished fills are
// bounded by twice the most a sweep had to keep.
const sweepFills = 64

// sweepFillsLocked drops the records of finished fills and sets the size at
// which the next sweep runs. The caller holds s.mu.
//
// A Go map keeps its peak memory after deletes, and ranging over it costs in
// proportion to that peak, not to what it holds: after a burst (a FillMany of
// a million keys puts thousands of records in each shard at once), every
// sweep of the few records left walked the burst's empty table, and the
// memory stayed. So a sweep that leaves a quarter of the peak or less makes
// a new map of the records kept, which costs less than the sweep did.
func (c *Cache[K, V]) sweepFillsLocked(s *shard[K, V]) {
	s.sweeps++
	for k, f := range s.fills {
		// A key with a flight keeps its record: the flight may be a newer one
		// whose fill has not registered yet (it will reuse the record), or the
		// one of this finished fill, which a later invalidation must Forget.
		if f.active == 0 && !c.flights.Pending(k) {
			delete(s.fills, k)
		}
	}
	n := len(s.fills)
	if mapshrink.Due(n, int(s.fillsPeak), 4*sweepFills) {
		s.fills = mapshrink.Rebuild(s.fills) // same records: fills in flight see later invalidations
		s.fillsPeak = int32(n)
	}
	s.records.Store(int32(n))
	s.sweepAt = int32(min(2*n, math.MaxInt32))
}
