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
// asked twice), and must return their values in that order. Its values are
// stored under the same rule as Get's: not for a key invalidated, Set or
// deleted after the load started (no stale set), nor for a key not owned.
//
// Unlike Get, the load is not shared: a GetMany does not join the loads of
// concurrent Gets of the same keys, nor do they join its load, so a key in
// both may be loaded twice (Stats.Loads counts a GetMany's load once). If load
// returns an error, or a number of values other than the number of keys it
// got, GetMany returns that error and stores nothing. load runs on ctx.
func (c *Cache[K, V]) GetMany(ctx context.Context, keys []K, load func(ctx context.Context, keys []K) ([]V, error)) ([]V, error) {
	cfg := c.cfg.Load()
	out := make([]V, len(keys))
	var (
		missed []int
		hs     [warmBatch]uint64
	)
	for start := 0; start < len(keys); start += warmBatch {
		chunk := keys[start:min(start+warmBatch, len(keys))]
		c.warmLookups(chunk, hs[:len(chunk)])
		for j, k := range chunk {
			if cfg.Owns == nil || cfg.Owns(k) {
				if v, ok := c.lookupHashed(cfg, k, hs[j]); ok {
					out[start+j] = v
					continue
				}
			} else {
				c.stats.notOwned.Add(1)
			}
			missed = append(missed, start+j)
		}
	}
	if len(missed) == 0 {
		return out, nil
	}
	mk := make([]K, len(missed))
	recs := make([]fillRecord[K, V], len(missed))
	for j, i := range missed {
		mk[j] = keys[i]
		recs[j] = c.startFill(keys[i])
	}
	startedAt := c.vouchTime(c.cfg.Load()) // after every fill registered, as in fill
	c.stats.loads.Add(1)
	ended := false
	defer func() {
		if !ended { // load panicked: end the fills, storing nothing
			var zero V
			for j, i := range missed {
				c.endFill(recs[j], keys[i], zero, false, startedAt)
			}
		}
	}()
	vs, err := load(ctx, mk)
	ended = true
	if err == nil && len(vs) != len(mk) {
		err = fmt.Errorf("cache: GetMany's load returned %d values for %d keys", len(vs), len(mk))
	}
	if err != nil {
		c.stats.loadErrors.Add(1)
	}
	for j, i := range missed {
		var v V
		if err == nil {
			v = vs[j]
			out[i] = v
		}
		c.endFill(recs[j], keys[i], v, err == nil, startedAt)
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// warmBatch is how many keys GetMany looks up ahead at a time.
const warmBatch = 16

// warmLookups stores the hashes of keys in hs and loads what their lookups
// will read (each key's bucket, then the entry its tag points to) in loads
// that do not depend on one another, so that the CPU overlaps the misses of
// all the keys instead of waiting for each lookup's in turn. It changes
// nothing.
func (c *Cache[K, V]) warmLookups(keys []K, hs []uint64) {
	var sum uint64
	for i, k := range keys {
		h := c.hash(k)
		hs[i] = h
		sum += c.shards[h&(numShards-1)].ix.tags(h)
	}
	for _, h := range hs {
		if e := c.shards[h&(numShards-1)].ix.candidate(h); e != nil {
			sum += e.hash
		}
	}
	runtime.KeepAlive(sum) // so that the loads are not dropped
}
