package memkv

import "github.com/tierkit/tierkit/internal/mapshrink"

// advanceHorizonLocked moves the GC horizon to v - HistoryVersions, or on to
// keep the bytes the commits after it wrote within HistoryBytes, and drops
// the range writes and idempotency keys that fell behind it. Caller holds s.mu.
//
// The horizon only moves under s.mu, and commit validation holds s.mu while
// it checks ReadVersion >= horizon: so a version a validation relies on (a
// tombstone, a range write newer than the read version) cannot be collected
// while it runs.
func (s *Store) advanceHorizonLocked(cfg *Config, v uint64) {
	h := uint64(0)
	if v > cfg.HistoryVersions {
		h = v - cfg.HistoryVersions
	}
	over := func() bool { return cfg.HistoryBytes > 0 && s.histBytes > cfg.HistoryBytes }
	hl := s.histLog.items()
	i := 0
	for i < len(hl) && (hl[i].ver <= h || over()) {
		h = max(h, hl[i].ver)
		s.histBytes -= hl[i].bytes
		i++
	}
	s.histLog.dropFront(i)
	if h <= s.horizon.Load() {
		return
	}
	s.horizon.Store(h)
	rl := s.rangeLog.items()
	i = 0
	for i < len(rl) && rl[i].ver <= h {
		i++
	}
	s.rangeLog.dropFront(i)
	// A commit at h is still in the window (h is readable): keep its key.
	ids := s.idemOrder.items()
	j := 0
	for j < len(ids) && ids[j].ver < h {
		delete(s.idem, ids[j].key)
		j++
	}
	s.idemOrder.dropFront(j)
	// A Go map keeps the memory of the most keys it held: rebuild it once a
	// quarter of them is left (after a burst of retries, or a window shrunk
	// by SetConfig), which copies at most a third of the keys deleted since.
	if j > 0 && mapshrink.Due(len(s.idem), s.idemPeak, minIdemRebuild) {
		s.idem = mapshrink.Rebuild(s.idem)
		s.idemPeak = len(s.idem)
	}
}

// minIdemRebuild is the fewest keys a map of idempotency keys must have held
// before it is worth rebuilding smaller.
const minIdemRebuild = 64

// gcStepLocked sweeps up to n keys from the rotating cursor, and stops once
// it has gone round every shard (n above the number of keys would sweep the
// same keys again, n times). Caller holds s.mu (which protects the cursor).
func (s *Store) gcStepLocked(n int) {
	h := s.horizon.Load()
	if h == 0 {
		return
	}
	for ends := 0; n > 0 && ends <= len(s.shards); n-- {
		sh := s.shards[s.gcShard]
		if s.gcCursor == nil {
			s.gcCursor = sh.l.head.next[0].Load()
		} else {
			s.gcCursor = s.gcCursor.next[0].Load()
		}
		if s.gcCursor == nil {
			s.gcShard = (s.gcShard + 1) % len(s.shards)
			ends++
			continue
		}
		sh.mu.Lock()
		s.sweepLocked(sh, s.gcCursor, h)
		sh.mu.Unlock()
	}
}

// GC sweeps every key now, dropping the versions no read at or above the
// horizon can see, and the keys whose newest version is a deletion older than
// the horizon. Commits sweep incrementally (Config.GCStep); call GC to bound
// memory at once (after a burst of deletes, say). It locks one shard at a time.
func (s *Store) GC() {
	h := s.horizon.Load()
	s.st.gcRuns.Add(1)
	for _, sh := range s.shards {
		sh.mu.Lock()
		for n := sh.l.head.next[0].Load(); n != nil; {
			next := n.next[0].Load()
			s.sweepLocked(sh, n, h)
			n = next
		}
		sh.mu.Unlock()
	}
}

// sweepLocked trims n's version chain below the newest version <= h. Caller
// holds sh.mu. It walks from the oldest version toward newer ones, so it
// reads only the versions it frees and the one it keeps: a key written often
// holds many versions inside the history window, and walking them all from
// the head on every sweep took most of a write's time.
func (s *Store) sweepLocked(sh *shard, n *node, h uint64) {
	v := n.tail
	if v == nil || v.ver > h {
		return
	}
	freed := int64(0)
	for v.newer != nil && v.newer.ver <= h {
		v = v.newer
		freed++
	}
	if freed > 0 {
		v.older.Store(nil)
		n.tail = v
	}
	// Readers at or above h see the key as absent either way, and no
	// validation looks at versions <= h. n may be unlinked already: the
	// incremental sweep's cursor can stand on an unlinked node and walk on
	// through its stale next pointers, and a write may have put a new node
	// under n's key since; remove touches only n itself.
	if v == n.head.Load() && v.del && sh.l.remove(n) {
		s.idx.del(n)
		sh.keys.Add(-1)
		freed++
	}
	if freed > 0 {
		sh.versions.Add(-freed)
		s.st.gcFreed.Add(uint64(freed))
	}
}
