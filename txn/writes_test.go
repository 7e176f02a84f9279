package txn

import (
	"bytes"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// refWrite is the reference model's buffered write of a key.
type refWrite struct {
	val string
	del bool
}

// TestRollbackKeepsIndexExact drives a write buffer with random writes,
// clears, range reads, savepoints, rollbacks and releases, and checks after
// each step against a map with a stack of snapshots: every key's buffered
// write, the index's slots (equal to those of a table rebuilt from the
// entries), and the sorted order when it is marked valid. Rollbacks remove
// entries from the index one probe at a time instead of rebuilding it, which
// is only right if the index stays exactly the rebuilt one.
func TestRollbackKeepsIndexExact(t *testing.T) {
	for _, tc := range []struct {
		name string
		keys int // distinct keys drawn from
		pre  int // writes before the first savepoint
	}{
		{name: "few keys", keys: 8, pre: 4},
		{name: "grows inside savepoints", keys: 400, pre: 10},
		{name: "many before", keys: 2000, pre: 1500},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(tc.keys), uint64(tc.pre)))
			key := func() []byte { return fmt.Appendf(nil, "k%05d", rng.IntN(tc.keys)) }
			w := &writes{}
			ref := map[string]refWrite{}
			var stack []map[string]refWrite
			var sps []Savepoint
			put := func(k []byte, v string, del bool) {
				var val []byte
				if !del {
					val = []byte(v)
				}
				p, err := w.locate(k, val)
				require.NoError(t, err)
				w.put(p, k, val, del)
				ref[string(k)] = refWrite{val: v, del: del}
			}
			for i := range tc.pre {
				put(key(), fmt.Sprint("pre", i), false)
			}
			for step := range 3000 {
				switch op := rng.IntN(20); {
				case op < 9:
					put(key(), fmt.Sprint("v", step), false)
				case op < 11:
					put(key(), "", true)
				case op < 12:
					lo, hi := key(), key()
					if bytes.Compare(lo, hi) > 0 {
						lo, hi = hi, lo
					}
					w.clearRange(lo, hi)
					for k := range ref {
						if k >= string(lo) && k < string(hi) {
							ref[k] = refWrite{del: true}
						}
					}
				case op < 14:
					w.inRange([]byte{}, nil) // makes the sorted order valid
				case op < 17:
					sps = append(sps, w.savepoint(0))
					stack = append(stack, maps.Clone(ref))
				case op < 19 && len(sps) > 0:
					d := rng.IntN(len(sps))
					w.rollbackTo(sps[d])
					ref = maps.Clone(stack[d])
					sps, stack = sps[:d+1], stack[:d+1]
				case len(sps) > 0:
					d := rng.IntN(len(sps))
					w.release(sps[d])
					sps, stack = sps[:d], stack[:d]
				}
				checkWrites(t, w, ref)
			}
		})
	}
}

// checkWrites compares w with the reference model. It runs after every
// step, over up to 2,000 keys: the comparisons are plain Go and testify
// only reports a mismatch, as a require call per key took the test to
// 35 s under -race (87 s with -cpu 1).
func checkWrites(t *testing.T, w *writes, ref map[string]refWrite) {
	t.Helper()
	require.Len(t, w.ents, len(ref))
	for k, rw := range ref {
		v, del, ok := w.lookup([]byte(k))
		if ok && del == rw.del && (del || string(v) == rw.val) {
			continue
		}
		require.True(t, ok, "key %q", k)
		require.Equal(t, rw.del, del, "key %q", k)
		require.Equal(t, rw.val, string(v), "key %q", k)
	}
	want := table{slots: make([]uint32, len(w.idx.slots))}
	if len(want.slots) > 0 {
		want.rebuild(w.ents)
	}
	if !slices.Equal(want.slots, w.idx.slots) {
		require.Equal(t, want.slots, w.idx.slots, "index slots")
	}
	require.Equal(t, len(w.ents), w.idx.n)
	if w.sortedOK {
		sorted := make([]int32, len(w.ents))
		for i := range sorted {
			sorted[i] = int32(i)
		}
		slices.SortFunc(sorted, func(a, b int32) int { return bytes.Compare(w.keyOf(a), w.keyOf(b)) })
		if !slices.Equal(sorted, w.sorted) {
			require.Equal(t, sorted, w.sorted, "sorted order")
		}
	}
}
