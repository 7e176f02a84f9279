package memkv

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
)

// checkChains verifies every key's version chain: the versions from the head
// along older end at the node's tail, each one's newer link points back to
// the version before it, versions never get newer along the chain (a key
// set twice in one commit holds two versions of the same number), and the
// shard's version and key counts match what the chains hold. The sweep
// starts at the tail (sweepLocked), so a tail or a newer link out of step
// would leave garbage behind or cut versions a reader may still need.
func checkChains(t *testing.T, s *Store) {
	t.Helper()
	for si, sh := range s.shards {
		sh.mu.Lock()
		versions, keys := int64(0), int64(0)
		for n := sh.l.head.next[0].Load(); n != nil; n = n.next[0].Load() {
			head := n.head.Load()
			if head == nil {
				continue
			}
			keys++
			if head.newer != nil {
				t.Errorf("shard %d key %q: the head has a newer version", si, n.key)
			}
			var last *version
			for v := head; v != nil; v = v.older.Load() {
				versions++
				if o := v.older.Load(); o != nil {
					if o.newer != v {
						t.Errorf("shard %d key %q: version %d's newer link is not version %d", si, n.key, o.ver, v.ver)
					}
					if o.ver > v.ver {
						t.Errorf("shard %d key %q: version %d chained below %d", si, n.key, o.ver, v.ver)
					}
				}
				last = v
			}
			if n.tail != last {
				t.Errorf("shard %d key %q: tail is not the oldest chained version", si, n.key)
			}
		}
		if got := sh.versions.Load(); got != versions {
			t.Errorf("shard %d: counts %d versions, its chains hold %d", si, got, versions)
		}
		if got := sh.keys.Load(); got != keys {
			t.Errorf("shard %d: counts %d keys, its chains hold %d", si, got, keys)
		}
		sh.mu.Unlock()
	}
}

func TestVersionChainsStayLinked(t *testing.T) {
	ctx := context.Background()
	for _, history := range []uint64{1, 4, 64} {
		t.Run(fmt.Sprintf("history=%d", history), func(t *testing.T) {
			s, err := New(Config{Splits: [][]byte{[]byte("k08"), []byte("k16")}, HistoryVersions: history, GCStep: 3})
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(uint64(history), 7))
			model := map[string]string{}
			key := func() []byte { return fmt.Appendf(nil, "k%02d", rng.IntN(24)) }
			for i := range 3000 {
				req := &CommitRequest{ReadVersion: s.ReadVersion()}
				switch r := rng.IntN(10); {
				case r < 6:
					k, v := key(), fmt.Appendf(nil, "v%d", i)
					req.Sets = [][]byte{k, v}
					model[string(k)] = string(v)
				case r < 8:
					k := key()
					req.Sets = [][]byte{k, nil}
					delete(model, string(k))
				default:
					b, e := key(), key()
					if string(b) > string(e) {
						b, e = e, b
					}
					req.Clears = [][]byte{b, e}
					for k := range model {
						if k >= string(b) && k < string(e) {
							delete(model, k)
						}
					}
				}
				if _, err := s.Commit(ctx, req); err != nil {
					t.Fatal(err)
				}
				if i%500 == 499 {
					s.GC()
				}
				if i%250 == 0 {
					checkChains(t, s)
				}
			}
			checkChains(t, s)
			at := s.ReadVersion()
			for k := range 24 {
				key := fmt.Appendf(nil, "k%02d", k)
				v, ok, err := s.Get(ctx, at, key)
				if err != nil {
					t.Fatal(err)
				}
				if want, in := model[string(key)]; ok != in || string(v) != want {
					t.Errorf("%s = %q, %v; want %q, %v", key, v, ok, want, in)
				}
			}
			if st := s.Stats(); st.GCFreed == 0 {
				t.Fatal("the sweep freed nothing: the test did not exercise it")
			}
		})
	}
}
