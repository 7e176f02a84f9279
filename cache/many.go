package cache

import (
	"context"
	"fmt"
	"runtime"
)

// GetMany returns the values of keys, in order, loading all the misses with
// one call of load: a multi-key read (an MGET) costs one backend call for
// what the cache does not hold, instead of a Get, and a load, per key.
//
// Each key is read as Get reads it: a hit is served from memory (if the key is
// owned and its entry is within the staleness bound); a miss goes to load.
// load gets the missed keys, in the order of keys (a key given twice is
// asked twice), and must return their values in that order; it may rewrite
// that slice (the values are stored under the keys as asked). Its values are
// stored under the same rule as Get's: not for a key invalidated, Set or
// deleted after the load started (no stale set), nor for a key not owned
// when the load ends or when the lookup asked (a key that becomes owned
// while the load runs is not stored), nor after a SetConfig with an Owns
// during the load.
//
// Unlike Get, the load is not shared: a GetMany does not join the loads of
// concurrent Gets of the same keys, nor do they join its load, so a key in
// both may be loaded twice (Stats.Loads counts a GetMany's load once). If load
// returns an error, or a number of values other than the number of keys it
// got (an error wrapping [ErrLoadCount]), GetMany returns that error and
// stores nothing. load runs on ctx, on the caller's goroutine, and GetMany
// returns when load does: unlike Get, it
// does not leave early when ctx ends, so load should honour ctx. A panic in
// load (or a runtime.Goexit) stores nothing, counts in Stats.LoadErrors and
// goes on up the caller's stack, where Get, whose load is shared, returns a
// *coalesce.PanicError instead.
func (c *Cache[K, V]) GetMany(ctx context.Context, keys []K, load func(ctx context.Context, keys []K) ([]V, error)) ([]V, error) {
	out := make([]V, len(keys))
	var unowned []bool // by index in keys, nil while every key is owned
	missed := c.lookupMany(keys, out, nil, nil, &unowned)
	if len(missed) == 0 {
		return out, nil
	}
	mk := make([]K, len(missed))
	var mu []bool // unowned, by index in mk
	if unowned != nil {
		mu = make([]bool, len(missed))
	}
	for j, i := range missed {
		mk[j] = keys[i]
		if mu != nil {
			mu[j] = unowned[i]
		}
	}
	vs, err := c.fillMany(ctx, mk, mu, load)
	if err != nil {
		return nil, err
	}
	for j, i := range missed {
		out[i] = vs[j]
	}
	return out, nil
}

// LookupMany is the first half of GetMany, for a caller that loads the misses
// on its own schedule (several shards' misses at once, say): it stores in
// out[i] the value of each keys[i] that a hit serves (the zero value for the
// others), and appends to missed the indexes of the others, in order; it
// returns missed. Hits and misses are
// counted as GetMany counts them; nothing is loaded. out must be as long as
// keys.
//
// Pass the missed keys to FillMany, which loads and stores them under the
// no-stale-set rule. A key written between the two calls is still safe: the
// fill record starts in FillMany, before its load reads the backend.
func (c *Cache[K, V]) LookupMany(keys []K, out []V, missed []int) []int {
	return c.lookupMany(keys, out, missed, nil, nil)
}

// lookupMany is LookupMany, and with a non-nil valid LookupManyValid. If
// unowned is not nil, it marks in *unowned (made as long as keys at the first
// key not owned) the index of each key not owned, for GetMany's fills.
func (c *Cache[K, V]) lookupMany(keys []K, out []V, missed []int, valid func(V) bool, unowned *[]bool) []int {
	cfg := c.cfg.Load()
	var hs [warmBatch]uint64
	for start := 0; start < len(keys); start += warmBatch {
		chunk := keys[start:min(start+warmBatch, len(keys))]
		c.warmLookups(chunk, hs[:len(chunk)])
		for j, k := range chunk {
			if cfg.Owns == nil || cfg.Owns(k) {
				var v V
				var ok bool
				if valid == nil {
					v, ok = c.lookupHashed(cfg, k, hs[j])
				} else {
					v, ok = c.lookupValid(cfg, k, hs[j], valid)
				}
				if ok {
					out[start+j] = v
					continue
				}
			} else {
				c.stats.notOwned.Add(1)
				if unowned != nil {
					if *unowned == nil {
						*unowned = make([]bool, len(keys))
					}
					(*unowned)[start+j] = true
				}
			}
			var zero V
			out[start+j] = zero
			missed = append(missed, start+j)
		}
	}
	return missed
}

// FillMany is the second half of GetMany: it loads keys (those LookupMany
// missed) with one call of load and returns their values, in order. It does
// not look them up first. load gets keys itself and may rewrite it: the
// values are stored under the keys as they were when FillMany was called. The values are stored under Get's rule: not for a
// key invalidated, Set or deleted after FillMany started (no stale set), nor
// for a key not owned when FillMany started (it asks Config.Owns of each key
// before the load: a key that becomes owned while the load runs is not
// stored) or when the load ends, nor after a SetConfig with an Owns during the
// load. The load is not shared with concurrent Gets. If load
// returns an error, or a number of values other than len(keys) (an error
// wrapping [ErrLoadCount]), FillMany returns that error and stores nothing. load runs on ctx, on the caller's
// goroutine: a panic in it reaches the caller, as in GetMany. With no keys
// (LookupMany found them all) there is nothing to load: FillMany returns an
// empty slice without calling load, as GetMany does for an all-hit read.
func (c *Cache[K, V]) FillMany(ctx context.Context, keys []K, load func(ctx context.Context, keys []K) ([]V, error)) ([]V, error) {
	if len(keys) == 0 {
		return []V{}, nil // no backend call: an empty multi-get may be an error there
	}
	return c.fillMany(ctx, keys, c.notOwned(keys), load)
}

// notOwned asks Config.Owns about each of keys and returns which of them
// this host does not own, by index, or nil when it owns them all.
func (c *Cache[K, V]) notOwned(keys []K) []bool {
	owns := c.cfg.Load().Owns
	if owns == nil {
		return nil
	}
	var unowned []bool
	for i, k := range keys {
		if !owns(k) {
			if unowned == nil {
				unowned = make([]bool, len(keys))
			}
			unowned[i] = true
		}
	}
	return unowned
}

// fillMany is FillMany of keys not empty, where unowned (nil, or as long as
// keys) marks the keys that were not owned when the read asked: their fills
// store nothing.
func (c *Cache[K, V]) fillMany(ctx context.Context, keys []K, unowned []bool, load func(ctx context.Context, keys []K) ([]V, error)) ([]V, error) {
	recs := c.startFills(keys, unowned)
	c.stats.loads.Add(1)
	loaded, next := false, 0 // the fills before next are ended
	defer func() {
		if next < len(keys) { // Clock, load or Owns panicked: end the rest, storing nothing
			if !loaded {
				c.stats.loadErrors.Add(1)
			}
			var zero V
			for i := next; i < len(keys); i++ {
				c.endFill(recs[i], zero, false, 0)
			}
		}
	}()
	startedAt := c.vouchTime(c.cfg.Load()) // after every fill registered, as in fill
	vs, err := load(ctx, keys)
	loaded = true
	if err == nil && len(vs) != len(keys) {
		err = fmt.Errorf("%w: %d values for %d keys", ErrLoadCount, len(vs), len(keys))
	}
	if err != nil {
		c.stats.loadErrors.Add(1)
	}
	for i, r := range recs { // their keys, not load's: it may have rewritten keys
		var v V
		if err == nil {
			v = vs[i]
		}
		next = i + 1 // endFill ends recs[i] even if Owns panics
		c.endFill(r, v, err == nil, startedAt)
	}
	if err != nil {
		return nil, err
	}
	return vs, nil
}

// startFills registers a fill of each of keys, as startFill does, marking
// those unowned marks (if not nil) as not owned when the read asked. If that
// panics (a key of an interface type whose dynamic type cannot be hashed,
// which a map would refuse too), the fills already registered are ended
// before the panic goes on: left in flight, their records would never be
// swept, and a process that recovers the panic would keep them for good.
func (c *Cache[K, V]) startFills(keys []K, unowned []bool) []fillRecord[K, V] {
	recs := make([]fillRecord[K, V], 0, len(keys))
	defer func() {
		if len(recs) < len(keys) {
			var zero V
			for _, r := range recs {
				c.endFill(r, zero, false, 0)
			}
		}
	}()
	for i, k := range keys {
		r := c.startFill(k)
		r.unowned = unowned != nil && unowned[i]
		recs = append(recs, r)
	}
	return recs
}

// warmBatch is how many keys GetMany looks up ahead at a time.
const warmBatch = 16

// warmLookups stores the hashes of keys in hs and loads what their lookups
// will read (each key's bucket, then the entry its tag points to) in loads
// that do not depend on one another, so that the CPU overlaps the misses of
// all the keys instead of waiting for each lookup's in turn. It changes
// nothing. (Loading the first bytes of a string key's entry too, which the
// lookup compares, made no difference: BenchmarkLookupManyStrings.)
func (c *Cache[K, V]) warmLookups(keys []K, hs []uint64) {
	var sum uint64
	for i, k := range keys {
		h := c.hash(k)
		hs[i] = h
		sum += c.shards[h&(numShards-1)].ix.tags(h)
	}
	c.warmCandidates(hs, sum)
}

// warmHashed is warmLookups of keys whose hashes hs are known.
func (c *Cache[K, V]) warmHashed(hs []uint64) {
	var sum uint64
	for _, h := range hs {
		sum += c.shards[h&(numShards-1)].ix.tags(h)
	}
	c.warmCandidates(hs, sum)
}

// warmCandidates loads the entries the buckets of hs point to, once their
// buckets are loaded (sum, what those loads read, keeps them).
func (c *Cache[K, V]) warmCandidates(hs []uint64, sum uint64) {
	for _, h := range hs {
		if e := c.shards[h&(numShards-1)].ix.candidate(h); e != nil {
			sum += e.hash
		}
	}
	runtime.KeepAlive(sum) // so that the loads are not dropped
}
