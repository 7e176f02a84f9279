package txn

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// clearedScan is the reference for writes.cleared: a scan of every clear.
func clearedScan(c [][]byte, key []byte) bool {
	for i := 0; i+1 < len(c); i += 2 {
		if bytes.Compare(c[i], key) <= 0 && (c[i+1] == nil || bytes.Compare(key, c[i+1]) < 0) {
			return true
		}
	}
	return false
}

// probeKeys are every key of up to three letters of "abc", the empty key
// first: together with ranges drawn from them, they hit every boundary case
// (equal, adjacent, nested, overlapping, empty and inverted ranges).
var probeKeys = func() [][]byte {
	ks := [][]byte{{}}
	for n := 0; n < len(ks) && len(ks[n]) < 3; n++ {
		for _, c := range []byte("abc") {
			ks = append(ks, append(bytes.Clone(ks[n]), c))
		}
	}
	return ks
}()

// clearOps drives a write buffer with clears, savepoints, rollbacks and
// releases taken from next (each call returns a number in [0, 256)), and
// checks after each step that cleared agrees with clearedScan on every
// probe key (after three steps in four: lookups index the clears lazily).
func clearOps(t *testing.T, steps int, next func() int) {
	t.Helper()
	w := &writes{}
	var sps []Savepoint
	bound := func(v int) []byte { // nil (unbounded), or a probe key
		if v%8 == 7 {
			return nil
		}
		return probeKeys[v%len(probeKeys)]
	}
	for range steps {
		switch op := next(); {
		case op < 160:
			w.clearRange(bound(next()), bound(next()))
		case op < 200:
			sps = append(sps, w.savepoint(0))
		case op < 240 && len(sps) > 0:
			d := next() % len(sps)
			w.rollbackTo(sps[d])
			sps = sps[:d+1]
		case len(sps) > 0:
			d := next() % len(sps)
			w.release(sps[d])
			sps = sps[:d]
		}
		checkClearTree(t, w)
		if next()%4 == 0 {
			continue // leave the clears since the last lookup unindexed
		}
		for _, k := range probeKeys {
			if want := clearedScan(w.clears, k); w.cleared(k) != want {
				t.Fatalf("cleared(%q) = %v after clears %q", k, !want, w.clears)
			}
		}
	}
}

// checkClearTree checks the clear tree's invariants: it holds every clear
// indexed once, in (begin, index) order, parents' priorities are not below their
// children's, and each node holds its subtree's latest-ending clear.
func checkClearTree(t *testing.T, w *writes) {
	t.Helper()
	require.LessOrEqual(t, len(w.cnodes), len(w.clears)/2)
	var order []int32
	var walk func(ref int32, prio uint32) (mx int32)
	walk = func(ref int32, prio uint32) int32 {
		n := w.cnodes[ref-1]
		if n.prio > prio {
			t.Fatalf("node %d: priority above its parent's", ref-1)
		}
		mx := ref - 1
		if n.l != 0 {
			mx = w.later(mx, walk(n.l, n.prio))
		}
		order = append(order, ref-1)
		if n.r != 0 {
			mx = w.later(mx, walk(n.r, n.prio))
		}
		if !bytes.Equal(w.cend(mx), w.cend(n.mx)) || (w.cend(mx) == nil) != (w.cend(n.mx) == nil) {
			t.Fatalf("node %d: subtree end %q, want %q", ref-1, w.cend(n.mx), w.cend(mx))
		}
		return mx
	}
	if w.croot != 0 {
		walk(w.croot, math.MaxUint32)
	}
	require.Len(t, order, len(w.cnodes))
	for i := 1; i < len(order); i++ {
		if !w.cless(order[i-1], order[i]) {
			t.Fatalf("in-order position %d out of order", i)
		}
	}
}

// TestClearedMatchesScan compares cleared with a scan of the clears over
// random clears, savepoints, rollbacks and releases.
func TestClearedMatchesScan(t *testing.T) {
	for seed := range uint64(50) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 1))
			clearOps(t, 300, func() int { return rng.IntN(256) })
		})
	}
}

// FuzzCleared is TestClearedMatchesScan with the operations drawn from the
// fuzz input.
func FuzzCleared(f *testing.F) {
	f.Add([]byte{0, 1, 2, 200, 0, 3, 4, 220, 0})
	f.Add([]byte{0, 7, 7, 0, 0, 0, 170, 0, 9, 12, 250, 0})
	f.Fuzz(func(t *testing.T, ops []byte) {
		i := 0
		clearOps(t, len(ops), func() int {
			if i >= len(ops) {
				return 0
			}
			i++
			return int(ops[i-1])
		})
	})
}

// TestClearedPathStaysShort: a lookup visits one path of the clear tree, so
// its cost follows the tree's depth, which must stay logarithmic in the
// number of clears whatever their order: clears recorded in ascending key
// order (a plain binary search tree would be a list of them), descending,
// and all beginning at one key. The old scan visited every clear.
func TestClearedPathStaysShort(t *testing.T) {
	const n = 16 << 10
	key := func(i int) []byte { return fmt.Appendf(nil, "c%07d", i) }
	tests := []struct {
		name  string
		clear func(i int) (begin, end []byte)
	}{
		{"ascending", func(i int) ([]byte, []byte) { return key(i), append(key(i), 0xff) }},
		{"descending", func(i int) ([]byte, []byte) { return key(n - i), append(key(n-i), 0xff) }},
		{"one begin", func(i int) ([]byte, []byte) { return []byte("a"), key(i) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := &writes{}
			for i := range n {
				w.clearRange(tt.clear(i))
			}
			require.False(t, w.cleared([]byte("z")), "a key after every clear")
			var depth func(ref int32) int
			depth = func(ref int32) int {
				if ref == 0 {
					return 0
				}
				nd := w.cnodes[ref-1]
				return 1 + max(depth(nd.l), depth(nd.r))
			}
			// A treap's expected depth is about 3 ln n (29 here); 4 log2 n
			// (56) is passed with a vanishing probability.
			d := depth(w.croot)
			t.Logf("%d clears: depth %d", n, d)
			require.LessOrEqual(t, d, 4*int(math.Log2(n)))
		})
	}
}
