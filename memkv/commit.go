package memkv

import (
	"bytes"
	"context"
	"math"
	"sort"
)

// Commit validates req against the writes committed after req.ReadVersion and,
// if none overlaps a read, applies its writes at a new version, which it
// returns. Errors: *ConflictError (retry the transaction), ErrTooOld (restart
// at a fresh read version; never for a request without reads to validate),
// ErrFutureVersion, ErrTooLarge, ErrInvalidRequest, ErrAlreadyCommitted (with
// the original version), and under fault injection ErrInjected and
// ErrCommitUnknown. A commit whose ctx has ended when it starts (or during
// Faults.Delay) is not applied: its error wraps ctx.Err() and reports
// Temporary() true, so a caller may retry it. A commit without writes is
// validated but creates no version; it returns the current one. The store
// keeps no reference to req or its slices.
func (s *Store) Commit(ctx context.Context, req *CommitRequest) (uint64, error) {
	return s.commit(ctx, req, false)
}

// commit is Commit; a blind commit (Put, Delete: writes only) takes the newest
// version as its read version under the commit lock, so that the horizon
// cannot pass it meanwhile: it has nothing to validate, and failing it as too
// old would only make its caller retry.
func (s *Store) commit(ctx context.Context, req *CommitRequest, blind bool) (uint64, error) {
	cfg := s.cfg.Load()
	if err := s.beforeCommit(ctx, cfg, req); err != nil {
		return 0, err
	}
	size := commitBytes(req) // outside the sequencer; checked under it
	s.mu.Lock()
	if blind {
		req.ReadVersion = s.visible.Load()
	}
	// The Config loaded above may be older than the one a commit before
	// this one applied with (SetConfig ran while the hooks or Delay held
	// this one): applying with it ignored a HistoryBytes bound set
	// meanwhile (and once dropped the log the horizon moves by). Loaded
	// under the sequencer, commits apply with Configs in the order they
	// were set.
	cfg = s.cfg.Load()
	v, err := s.commitLocked(cfg, req, size)
	s.mu.Unlock()
	if err != nil {
		return v, err
	}
	if f := cfg.Faults.DropReply; f != nil && f(req) {
		s.st.dropped.Add(1)
		return 0, ErrCommitUnknown
	}
	return v, nil
}

// Put writes key = value blindly (no reads to validate) and returns the
// commit version. A nil value is stored as empty. It commits at the newest
// read version, so other commits never make it fail with ErrTooOld.
func (s *Store) Put(ctx context.Context, key, value []byte) (uint64, error) {
	if value == nil {
		value = []byte{}
	}
	return s.commit(ctx, &CommitRequest{Sets: [][]byte{key, value}}, true)
}

// Delete deletes key blindly and returns the commit version; like Put, it
// never fails with ErrTooOld.
func (s *Store) Delete(ctx context.Context, key []byte) (uint64, error) {
	return s.commit(ctx, &CommitRequest{Sets: [][]byte{key, nil}}, true)
}

func (s *Store) beforeCommit(ctx context.Context, cfg *Config, req *CommitRequest) error {
	if cfg.Faults.Delay > 0 {
		if err := wait(ctx, cfg.Faults.Delay); err != nil {
			return notAppliedError{err}
		}
	}
	if err := ctx.Err(); err != nil {
		return notAppliedError{err}
	}
	if f := cfg.Faults.FailBeforeCommit; f != nil && f(req) {
		s.st.injected.Add(1)
		return ErrInjected
	}
	if (len(req.ReadRanges)|len(req.Sets)|len(req.Clears)|len(req.WriteRanges))%2 != 0 {
		// An unpaired key was dropped: a read range left unvalidated (a
		// lost conflict), a write left out of a commit reported applied.
		return ErrInvalidRequest
	}
	return nil
}

// commitBytes returns the bytes of req that Config.MaxCommitBytes bounds: the
// keys and values of its sets and clears, or math.MaxInt if they are more.
// The sum saturates because a request may repeat one slice by reference at
// no cost in memory: where int has 32 bits, a few references to a large
// value wrapped the sum below the bound, and the commit copied each of them.
func commitBytes(req *CommitRequest) int {
	size := 0
	for _, b := range req.Sets {
		size = addLen(size, len(b))
	}
	for _, b := range req.Clears {
		size = addLen(size, len(b))
	}
	return size
}

// addLen returns size + n (both >= 0), or math.MaxInt if that overflows.
func addLen(size, n int) int {
	if n > math.MaxInt-size {
		return math.MaxInt
	}
	return size + n
}

// commitLocked validates and applies req, whose commitBytes are size.
func (s *Store) commitLocked(cfg *Config, req *CommitRequest, size int) (uint64, error) {
	// A repeat of an applied commit is answered before anything else: the
	// retry of a lost reply resends the same request, whose read version may
	// have fallen behind the horizon since, and it must learn that the first
	// attempt committed rather than be told to restart.
	if len(req.IdempotencyKey) > 0 {
		if v, ok := s.idem[string(req.IdempotencyKey)]; ok {
			s.st.already.Add(1)
			return v, ErrAlreadyCommitted
		}
	}
	// After the lookup for the same reason: MaxCommitBytes may have been
	// lowered below the size of an applied commit before its retry, and
	// ErrTooLarge would tell that caller to split a transaction already done.
	if size > cfg.MaxCommitBytes {
		s.st.tooLarge.Add(1)
		return 0, ErrTooLarge
	}
	rv := req.ReadVersion
	// A commit without reads validates nothing: its read version cannot be
	// too old (a read-committed transaction that only writes relies on it).
	reads := len(req.ReadKeys) > 0 || len(req.ReadRanges) > 0
	if reads && rv < s.horizon.Load() && !cfg.Bugs.IgnoreTooOld {
		s.st.tooOld.Add(1)
		return 0, ErrTooOld
	}
	if rv > s.visible.Load() {
		return 0, ErrFutureVersion
	}
	if s.conflicts(cfg, req, nil) {
		ce := &ConflictError{}
		s.conflicts(cfg, req, ce)
		s.st.conflicts.Add(1)
		if len(ce.Keys) > 0 {
			s.st.conflictKeys.Add(1)
		}
		if len(ce.Ranges) > 0 {
			s.st.conflictRanges.Add(1)
		}
		return 0, ce
	}
	if len(req.Sets) == 0 && len(req.Clears) == 0 && len(req.WriteRanges) == 0 {
		// Read-only: validated, nothing to apply, no new version.
		s.st.commits.Add(1)
		return s.visible.Load(), nil
	}
	v := s.visible.Load() + 1
	evs := s.apply(req, v)
	s.visible.Store(v)
	if len(req.IdempotencyKey) > 0 {
		k := string(req.IdempotencyKey)
		s.idem[k] = v
		s.idemOrder.push(idemEntry{k, v})
		s.idemPeak = max(s.idemPeak, len(s.idem))
	}
	s.st.commits.Add(1)
	s.publishLocked(cfg, evs, v)
	// Logged with or without a HistoryBytes bound: a bound set later by
	// SetConfig must count the commits already in the window, or it would
	// hold only once as many bytes were written again.
	n := windowBytes(req)
	s.histLog.push(histEntry{v, n})
	s.histBytes += n
	s.advanceHorizonLocked(cfg, v)
	if cfg.GCStep > 0 {
		s.gcStepLocked(cfg.GCStep)
	}
	return v, nil
}

// windowBytes returns the bytes req holds in the history window, which
// Config.HistoryBytes bounds: the keys and values of its sets, and the bounds
// of its clears and write ranges (rangeLog holds them as long as the values).
func windowBytes(req *CommitRequest) int64 {
	n := int64(0)
	for _, r := range [][][]byte{req.Sets, req.Clears, req.WriteRanges} {
		for _, b := range r {
			n += int64(len(b))
		}
	}
	return n
}

// conflicts reports whether a write committed after req.ReadVersion overlaps a
// read of req. With ce nil it stops at the first conflict; otherwise it
// records every conflicting read in ce.
func (s *Store) conflicts(cfg *Config, req *CommitRequest, ce *ConflictError) bool {
	rv, found := req.ReadVersion, false
	log := s.rangeLogAfter(rv)
	if !cfg.Bugs.IgnoreReadKeys {
		for _, k := range req.ReadKeys {
			if w := s.keyWrittenAfter(k, rv, log); w > 0 {
				if ce == nil {
					return true
				}
				found = true
				ce.Keys = append(ce.Keys, bytes.Clone(k))
				ce.Version = max(ce.Version, w)
			}
		}
	}
	if !cfg.Bugs.IgnoreReadRanges {
		r := req.ReadRanges
		for i := 0; i+1 < len(r); i += 2 {
			if w := s.rangeWrittenAfter(r[i], r[i+1], rv, log); w > 0 {
				if ce == nil {
					return true
				}
				found = true
				ce.Ranges = append(ce.Ranges, bytes.Clone(r[i]), bytes.Clone(r[i+1]))
				ce.Version = max(ce.Version, w)
			}
		}
	}
	return found
}

// rangeLogAfter returns the range writes committed after rv.
func (s *Store) rangeLogAfter(rv uint64) []rangeWrite {
	log := s.rangeLog.items()
	i := sort.Search(len(log), func(i int) bool { return log[i].ver > rv })
	return log[i:]
}

// keyWrittenAfter returns the newest version after rv that wrote k, or 0.
func (s *Store) keyWrittenAfter(k []byte, rv uint64, log []rangeWrite) uint64 {
	var w uint64
	if n := s.idx.get(k); n != nil {
		if h := n.head.Load(); h != nil && h.ver > rv {
			w = h.ver
		}
	}
	for i := range log {
		if log[i].ver > w && bytes.Compare(log[i].begin, k) <= 0 && (log[i].end == nil || bytes.Compare(k, log[i].end) < 0) {
			w = log[i].ver
		}
	}
	return w
}

// rangeWrittenAfter returns the newest version after rv that wrote a key in
// [b, e) (including deletions of keys and writes to keys absent at rv), or 0.
func (s *Store) rangeWrittenAfter(b, e []byte, rv uint64, log []rangeWrite) uint64 {
	var w uint64
	s.eachForward(b, e, func(n *node) bool {
		if h := n.head.Load(); h != nil && h.ver > max(rv, w) {
			w = h.ver
		}
		return true
	})
	for i := range log {
		if log[i].ver > w && overlaps(b, e, log[i].begin, log[i].end) {
			w = log[i].ver
		}
	}
	return w
}

// overlaps reports whether [b1, e1) and [b2, e2) intersect (nil end: +inf).
func overlaps(b1, e1, b2, e2 []byte) bool {
	return (e2 == nil || bytes.Compare(b1, e2) < 0) && (e1 == nil || bytes.Compare(b2, e1) < 0) &&
		(e1 == nil || bytes.Compare(b1, e1) < 0) && (e2 == nil || bytes.Compare(b2, e2) < 0)
}

// apply installs the writes of req at version v and returns the feed events
// (nil when nobody subscribed).
func (s *Store) apply(req *CommitRequest, v uint64) []Event {
	var evs []Event
	feed := len(s.subs) > 0
	c := req.Clears
	for i := 0; i+1 < len(c); i += 2 {
		b, e := c[i], c[i+1]
		s.rangeLog.push(rangeWrite{bytes.Clone(b), bytes.Clone(e), v})
		for si, last := s.shardIndex(b), s.lastShard(e); si <= last; si++ {
			sh := s.shards[si]
			sh.mu.Lock()
			for n := sh.l.seekGE(b); n != nil && (e == nil || bytes.Compare(n.key, e) < 0); n = n.next[0].Load() {
				if h := n.head.Load(); h != nil && !h.del {
					n.push(&version{ver: v, del: true})
					sh.versions.Add(1)
					if feed {
						evs = append(evs, Event{Kind: EventWrite, Version: v, Key: n.key, Deleted: true})
					}
				}
			}
			sh.mu.Unlock()
		}
	}
	wr := req.WriteRanges
	for i := 0; i+1 < len(wr); i += 2 {
		s.rangeLog.push(rangeWrite{bytes.Clone(wr[i]), bytes.Clone(wr[i+1]), v})
	}
	for i := 0; i+1 < len(req.Sets); i += 2 {
		k, val := req.Sets[i], req.Sets[i+1]
		nv := &version{ver: v, del: val == nil}
		if val != nil {
			// A copy of its own, of exact capacity: one array for all the
			// values of a commit kept every one of them in memory while any
			// was live, after GC had dropped the others' versions.
			nv.val = append(make([]byte, 0, len(val)), val...)
		}
		sh := s.shardOf(k)
		sh.mu.Lock()
		n := s.idx.get(k) // under sh.mu: GC cannot unlink it meanwhile
		if val == nil && (n == nil || n.head.Load() == nil || n.head.Load().del) {
			sh.mu.Unlock()
			continue // deleting an absent key changes nothing: no version, no conflict
		}
		if n == nil {
			n = sh.l.getOrInsert(k)
			s.idx.put(n)
		}
		if n.push(nv) {
			sh.keys.Add(1)
		}
		sh.versions.Add(1)
		// Trim the key's own versions behind the horizon: the incremental
		// sweep comes back to it only after visiting every other key, and a
		// key written on every commit held a version per commit meanwhile.
		// The walk from the oldest version reads only what it frees.
		s.sweepLocked(sh, n, s.horizon.Load())
		sh.mu.Unlock()
		if feed {
			evs = append(evs, Event{Kind: EventWrite, Version: v, Key: n.key, Value: nv.val, Deleted: nv.del})
		}
	}
	return evs
}
