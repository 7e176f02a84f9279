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
	i := 0
	for i < len(s.histLog) && (s.histLog[i].ver <= h || over()) {
		h = max(h, s.histLog[i].ver)
		s.histBytes -= s.histLog[i].bytes
		i++
	}
	s.histLog = dropFront(s.histLog, i)
	if h <= s.horizon.Load() {
		return
	}
	s.horizon.Store(h)
	i = 0
	for i < len(s.rangeLog) && s.rangeLog[i].ver <= h {
		i++
	}
	s.rangeLog = dropFront(s.rangeLog, i)
	// A commit at h is still in the window (h is readable): keep its key.
	j := 0
	for j < len(s.idemOrder) && s.idemOrder[j].ver < h {
		delete(s.idem, s.idemOrder[j].key)
		j++
	}
	s.idemOrder = dropFront(s.idemOrder, j)
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

// dropFront drops the first n elements of log in amortized constant time per
// element: it reslices, clearing them so their memory can go, and copies the
// rest to a new array only once they are at most a quarter of the array as
// far as it sees it (the n elements dropped and the capacity left). Copying
// on every drop made each commit cost the window's length once the window
// was full and every commit dropped one entry (an idempotency key, a range
// write): 89 and 192 µs per commit with a window of 2^16
// (bench/memkv/droplog_abba.txt, medians of 6 runs). The capacity left
// alone is not enough: when the window shrinks (SetConfig) and the few
// entries left sit at the end of a full array, it is theirs alone, and the
// whole array stayed alive until as many entries were appended again.
func dropFront[T any](log []T, n int) []T {
	if n == 0 {
		return log
	}
	clear(log[:n])
	log = log[n:]
	if 4*len(log) <= n+cap(log) {
		log = append(make([]T, 0, 2*len(log)+1), log...)
	}
	return log
}

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
