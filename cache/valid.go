package cache

import "context"

// GetValid is Get for values that can go bad by themselves, which no event
// reports (a TTL that ran out): a cached value for which valid returns false
// is not served. Its entry is deleted (as by Delete; a value stored after the
// check is kept) and the read counts as a miss, not a hit, and loads as Get's
// misses do. A loaded value is returned
// without the check. valid is called on hits only, and must be fast; a nil
// valid accepts every value, as in LookupManyValid (GetValid is then Get).
func (c *Cache[K, V]) GetValid(ctx context.Context, key K, valid func(V) bool, load func(context.Context) (V, error)) (V, error) {
	if valid == nil { // every value is valid, as in LookupManyValid
		return c.Get(ctx, key, load)
	}
	cfg := c.cfg.Load()
	owned := cfg.Owns == nil || cfg.Owns(key)
	if owned {
		if v, ok := c.lookupValid(cfg, key, c.hash(key), valid); ok {
			return v, nil
		}
	} else {
		c.stats.notOwned.Add(1)
	}
	return c.loadShared(ctx, cfg, key, owned, load)
}

// LookupManyValid is LookupMany with GetValid's check: a cached value for
// which valid returns false is deleted, counted as a miss and its index
// appended to missed.
func (c *Cache[K, V]) LookupManyValid(keys []K, out []V, missed []int, valid func(V) bool) []int {
	if valid == nil {
		valid = func(V) bool { return true }
	}
	return c.lookupMany(keys, out, missed, valid, nil)
}

// lookupValid is lookupHashed that serves only a value valid accepts; it
// deletes an entry valid rejects, and counts that read as a miss. (A copy,
// not a parameter of lookupHashed: Get's and LookupMany's hits pay nothing
// for it.)
func (c *Cache[K, V]) lookupValid(cfg *Config[K], key K, h uint64, valid func(V) bool) (V, bool) {
	cp := c.checkpointBefore(cfg)
	e := c.shards[h&(numShards-1)].ix.get(key, h)
	st := c.stripeOf()
	if e != nil {
		v, freshAt := c.load(e)
		if cfg.MaxStaleness > 0 && !c.fresh(cfg.MaxStaleness, cp, freshAt) {
			c.stats.staleBypass.Add(1)
		} else if valid(v) {
			c.recordHit(st, e.p, true)
			return v, true
		} else {
			c.dropRejected(key, h, e, v)
		}
	}
	st.misses.Add(1)
	var zero V
	return zero, false
}

// dropRejected deletes e, whose value v a validity check rejected, and makes
// the key's in-flight fills lose, as Delete does; but not when e was replaced
// or updated in place since the check: a Set or refill that landed between
// the check and here holds a value nobody has checked, and deleting the key
// would drop it.
func (c *Cache[K, V]) dropRejected(key K, h uint64, e *entry[K, V], v V) {
	s := &c.shards[h&(numShards-1)]
	s.mu.Lock()
	if s.ix.get(key, h) != e || c.word && e.bits.Load() != toBits(v) {
		s.mu.Unlock()
		return
	}
	c.invalidateFillsLocked(s, key)
	c.dropLocked(s, e)
}
