package memkv

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// oldSweepLocked is sweepLocked as it was before the sweep walked from the
// tail: it walks from the head down to the newest version <= h and cuts the
// chain below it. TestSweepFromTailMatchesHeadWalk checks that the new sweep
// frees exactly the same versions and keys.
func oldSweepLocked(s *Store, sh *shard, n *node, h uint64) {
	head := n.head.Load()
	v := head
	for v != nil && v.ver > h {
		v = v.older.Load()
	}
	if v == nil {
		return
	}
	freed := int64(0)
	for o := v.older.Load(); o != nil; o = o.older.Load() {
		freed++
	}
	v.older.Store(nil)
	// Kept as the tail walk keeps it, which the head walk had no use for:
	// commits trim the keys they write with the tail walk (in both stores
	// of the test), which must not start from a version cut off here.
	n.tail = v
	if v == head && v.del && sh.l.remove(n) {
		s.idx.del(n)
		sh.keys.Add(-1)
		freed++
	}
	if freed > 0 {
		sh.versions.Add(-freed)
		s.st.gcFreed.Add(uint64(freed))
	}
}

// sweeper is the part of the GC that the differential test swaps.
type sweeper func(s *Store, sh *shard, n *node, h uint64)

func newSweep(s *Store, sh *shard, n *node, h uint64) { s.sweepLocked(sh, n, h) }

// stepWith is gcStepLocked with a given sweep; the caller holds s.mu.
func stepWith(s *Store, sweep sweeper, n int) {
	h := s.horizon.Load()
	if h == 0 {
		return
	}
	for range n {
		sh := s.shards[s.gcShard]
		if s.gcCursor == nil {
			s.gcCursor = sh.l.head.next[0].Load()
		} else {
			s.gcCursor = s.gcCursor.next[0].Load()
		}
		if s.gcCursor == nil {
			s.gcShard = (s.gcShard + 1) % len(s.shards)
			continue
		}
		sh.mu.Lock()
		sweep(s, sh, s.gcCursor, h)
		sh.mu.Unlock()
	}
}

// gcWith is GC with a given sweep.
func gcWith(s *Store, sweep sweeper) {
	h := s.horizon.Load()
	s.st.gcRuns.Add(1)
	for _, sh := range s.shards {
		sh.mu.Lock()
		for n := sh.l.head.next[0].Load(); n != nil; {
			next := n.next[0].Load()
			sweep(s, sh, n, h)
			n = next
		}
		sh.mu.Unlock()
	}
}

// dumpStore renders every linked key's chain as readers see it (from the
// head along older), the index, the GC cursor and the counters.
func dumpStore(s *Store) string {
	var b strings.Builder
	for si, sh := range s.shards {
		fmt.Fprintf(&b, "shard %d (n=%d):", si, sh.l.n)
		for n := sh.l.head.next[0].Load(); n != nil; n = n.next[0].Load() {
			fmt.Fprintf(&b, " %s[", n.key)
			for v := n.head.Load(); v != nil; v = v.older.Load() {
				fmt.Fprintf(&b, "%d:%q:%v ", v.ver, v.val, v.del)
			}
			fmt.Fprintf(&b, "] idx=%v", s.idx.get(n.key) == n)
		}
		b.WriteString("\n")
	}
	cur := "nil"
	if s.gcCursor != nil {
		cur = string(s.gcCursor.key)
	}
	st := s.Stats()
	fmt.Fprintf(&b, "cursor %d %s; versions %d keys %d freed %d runs %d horizon %d\n",
		s.gcShard, cur, st.Versions, st.Keys, st.GCFreed, st.GCRuns, st.Horizon)
	return b.String()
}

// randomCommit builds a commit mixing sets, deletions (of present and absent
// keys), a key written twice, clears and write ranges.
func randomCommit(rng *rand.Rand, i int) *CommitRequest {
	key := func() []byte { return fmt.Appendf(nil, "k%02d", rng.IntN(20)) }
	req := &CommitRequest{}
	if rng.IntN(5) == 0 {
		b, e := key(), key()
		if string(b) > string(e) {
			b, e = e, b
		}
		req.Clears = [][]byte{b, e}
	}
	if rng.IntN(8) == 0 {
		req.WriteRanges = [][]byte{key(), nil}
	}
	for range rng.IntN(4) {
		k := key()
		var v []byte
		if rng.IntN(3) > 0 {
			v = fmt.Appendf(nil, "v%d", i)
		}
		req.Sets = append(req.Sets, k, v)
		if rng.IntN(6) == 0 { // the same key again in the same commit
			req.Sets = append(req.Sets, k, fmt.Appendf(nil, "w%d", i))
		}
	}
	return req
}

// TestSweepFromTailMatchesHeadWalk runs the same random commits on two stores
// and sweeps one with the tail walk and the other with the head walk it
// replaced, incrementally and in full: the chains readers see, the index, the
// cursor and the counters must stay identical, and the tail and newer links
// of the first must stay consistent.
func TestSweepFromTailMatchesHeadWalk(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(6) {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 11))
			cfg := Config{Splits: [][]byte{[]byte("k07"), []byte("k14")},
				HistoryVersions: 1 + rng.Uint64N(8), GCStep: -1}
			stores := [2]*Store{}
			sweeps := [2]sweeper{newSweep, oldSweepLocked}
			for i := range stores {
				s, err := New(cfg)
				if err != nil {
					t.Fatal(err)
				}
				stores[i] = s
			}
			for i := range 1500 {
				req := randomCommit(rng, i)
				if i%300 == 299 { // move the window: the horizon jumps
					cfg.HistoryVersions = 1 + rng.Uint64N(8)
				}
				step, full := 1+rng.IntN(4), rng.IntN(40) == 0
				for j, s := range stores {
					if err := s.SetConfig(cfg); err != nil {
						t.Fatal(err)
					}
					r := *req
					r.ReadVersion = s.ReadVersion()
					if _, err := s.Commit(ctx, &r); err != nil {
						t.Fatal(err)
					}
					s.mu.Lock()
					stepWith(s, sweeps[j], step)
					s.mu.Unlock()
					if full {
						gcWith(s, sweeps[j])
					}
				}
				if got, want := dumpStore(stores[0]), dumpStore(stores[1]); got != want {
					t.Fatalf("commit %d: tail walk\n%s\nhead walk\n%s", i, got, want)
				}
				if i%100 == 0 {
					checkChains(t, stores[0])
				}
			}
			checkChains(t, stores[0])
			if st := stores[0].Stats(); st.GCFreed == 0 || !slices.ContainsFunc(stores[0].shards, func(sh *shard) bool { return sh.l.n > 0 }) {
				t.Fatalf("the run freed nothing or emptied the store: %+v", st)
			}
		})
	}
}
