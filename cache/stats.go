package cache

import "sync/atomic"

// Stats is a snapshot of a [Cache]'s counters (monotonic since New) and gauges.
type Stats struct {
	// Hits counts reads served from memory.
	Hits uint64
	// Misses counts reads not served from memory that looked the key up:
	// absent keys, keys beyond the staleness bound, and values that the check
	// of GetValid or LookupManyValid rejected (not NotOwned reads).
	Misses uint64
	// Loads counts calls of a loader (one per coalesced flight).
	Loads uint64
	// LoadErrors counts loads that returned an error, panicked or called
	// runtime.Goexit, and bulk loads that returned a wrong number of values.
	LoadErrors uint64
	// Coalesced counts Gets that shared another caller's load instead of
	// loading: in a herd of n concurrent misses, n-1. A Get that joined a
	// load slower than the staleness bound and loaded again (StaleBypass)
	// counts by that new load: in Loads if it led it, here if it joined
	// another bypassing Get's. A Get not served from memory counts at most
	// once in the two: in Loads if it started the load, whether or not its
	// caller stayed for the result (the load goes on for those who joined
	// it), here if it joined another's load and stayed, in neither if it
	// left a load it joined. So Loads + Coalesced is not the number of Gets
	// that waited for a loaded value: a load whose leader left while others
	// waited counts one more.
	Coalesced uint64
	// Invalidations counts entries removed by Write/Delete events, Delete or
	// a Set of a key not owned, and by GetValid or LookupManyValid when their
	// check rejects a value.
	Invalidations uint64
	// Refills counts entries updated in place by Write events with Refill.
	Refills uint64
	// DroppedFills counts loaded values not stored because their key was
	// invalidated, Set or deleted while the load ran (stale sets prevented):
	// one per key position, so a bulk load (GetMany, FillMany), which counts
	// once in Loads, counts here once for each of its keys dropped (a key
	// given twice, twice), and DroppedFills may exceed Loads.
	DroppedFills uint64
	// StaleBypass counts the times a read would have been served staler than
	// the bound and read through instead: it found the key beyond the bound
	// (such a read is also a Miss), or it joined another caller's load that
	// had started more than the bound before it, and loaded again (a read
	// not owned, which is no Miss, can count here too). One Get can count
	// twice, once each way: it found the key beyond the bound, then joined
	// such a load (it adds 1 to Misses and 2 here). So StaleBypass is not a
	// part of Misses. TryGet, LookupMany and LookupManyValid, which never
	// load, count a key beyond the bound here too (and as a Miss): the
	// read-through is their caller's to make, if any (FillMany). Contains
	// counts nothing.
	StaleBypass uint64
	// NotOwned counts reads of keys this host does not own.
	NotOwned uint64
	// Evictions counts entries evicted for capacity. An entry removed counts
	// once, in Evictions or Invalidations: one evicted just before its
	// invalidation counts as evicted only.
	Evictions uint64
	// Checkpoints counts applied checkpoint events.
	Checkpoints uint64
	// Watermark is the newest checkpoint watermark.
	Watermark uint64
	// Len is the number of entries; Capacity the configured maximum.
	Len, Capacity int
}

// HitRatio returns Hits / (Hits + Misses), or 0 before any read.
func (s Stats) HitRatio() float64 {
	if s.Hits+s.Misses == 0 {
		return 0
	}
	return float64(s.Hits) / float64(s.Hits+s.Misses)
}

// counters are the cache's monotonic counters other than hits and misses,
// which live in the read stripes.
type counters struct {
	loads, loadErrors, coalesced, invalidations, refills atomic.Uint64
	droppedFills, staleBypass, notOwned, evictions       atomic.Uint64
	checkpoints                                          atomic.Uint64
}

// Stats returns a snapshot of the counters. Fields are read one by one, so a
// snapshot taken under load may be off by the operations in progress.
func (c *Cache[K, V]) Stats() Stats {
	s := Stats{
		Loads:         c.stats.loads.Load(),
		LoadErrors:    c.stats.loadErrors.Load(),
		Coalesced:     c.stats.coalesced.Load(),
		Invalidations: c.stats.invalidations.Load(),
		Refills:       c.stats.refills.Load(),
		DroppedFills:  c.stats.droppedFills.Load(),
		StaleBypass:   c.stats.staleBypass.Load(),
		NotOwned:      c.stats.notOwned.Load(),
		Evictions:     c.stats.evictions.Load(),
		Checkpoints:   c.stats.checkpoints.Load(),
		Watermark:     c.watermark.Load(),
	}
	// Len and Capacity under the policy lock, which SetConfig holds while it
	// swaps the config: apart, a capacity lowered between the two reads made
	// a snapshot with more entries than its capacity.
	c.mu.Lock()
	c.drainAddsLocked()
	s.Len, s.Capacity = c.pol.size, c.cfg.Load().capacity()
	c.unlockPolicy()
	for i := range c.stripes {
		st := &c.stripes[i]
		st.mu.Lock()
		s.Hits += st.lockedHits
		st.mu.Unlock()
		s.Hits += st.hits.Load()
		s.Misses += st.misses.Load()
	}
	return s
}
