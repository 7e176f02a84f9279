package txn

import (
	"bytes"
	"math/rand/v2"
)

// The range clears of a write buffer are indexed by a treap (a binary
// search tree kept balanced by random heap priorities; Seidel and Aragon,
// "Randomized search trees", 1996) so that cleared costs O(log k) expected
// for k clears instead of a scan of them. Node i is clear i, that is
// [w.clears[2i], w.clears[2i+1]); nodes are ordered by (begin, i) and each
// holds the clear of greatest end in its subtree, so that a lookup descends
// one path. The tree holds every clear as recorded, empty and overlapping
// ones included: nothing is merged, so a rollback removes exactly the
// clears it truncates (newest first, each O(log k)) and its cost stays that
// of the work since the savepoint, as for writes. Clears enter the tree at
// the first lookup after them, not when recorded, so clearing without
// reading costs no more than before. Nodes refer to each other by index and
// hold no pointers: the GC does not scan them.
//
// Priorities are random, not derived from the index, so that no order of
// keys chosen by a client can make the tree deep.

// cnode is a node of the clear tree. Child references are node index + 1,
// 0 for none, so that the zero writes holds an empty tree.
type cnode struct {
	l, r int32  // children
	mx   int32  // index of the clear of greatest end in the subtree
	prio uint32 // heap order: a parent's is not below its children's
}

func (w *writes) cbegin(i int32) []byte { return w.clears[2*i] }
func (w *writes) cend(i int32) []byte   { return w.clears[2*i+1] }

// endAfter reports whether clear i ends after key (nil end: +infinity).
func (w *writes) endAfter(i int32, key []byte) bool {
	e := w.cend(i)
	return e == nil || bytes.Compare(key, e) < 0
}

// cless reports whether clear i orders before clear j: by begin, then index.
func (w *writes) cless(i, j int32) bool {
	if c := bytes.Compare(w.cbegin(i), w.cbegin(j)); c != 0 {
		return c < 0
	}
	return i < j
}

// later returns whichever of clears i and j ends later.
func (w *writes) later(i, j int32) int32 {
	if w.cend(i) == nil || (w.cend(j) != nil && bytes.Compare(w.cend(i), w.cend(j)) > 0) {
		return i
	}
	return j
}

// fix recomputes the subtree maximum of node reference t.
func (w *writes) fix(t int32) {
	n := &w.cnodes[t-1]
	mx := t - 1
	if n.l != 0 {
		mx = w.later(mx, w.cnodes[n.l-1].mx)
	}
	if n.r != 0 {
		mx = w.later(mx, w.cnodes[n.r-1].mx)
	}
	n.mx = mx
}

// split splits tree t into the nodes ordered before clear i and the rest.
func (w *writes) split(t, i int32) (lo, hi int32) {
	if t == 0 {
		return 0, 0
	}
	n := &w.cnodes[t-1]
	if w.cless(t-1, i) {
		n.r, hi = w.split(n.r, i)
		w.fix(t)
		return t, hi
	}
	lo, n.l = w.split(n.l, i)
	w.fix(t)
	return lo, t
}

// join joins trees a and b, every node of a ordered before every node of b.
func (w *writes) join(a, b int32) int32 {
	if a == 0 || b == 0 {
		return a + b
	}
	if na := &w.cnodes[a-1]; na.prio >= w.cnodes[b-1].prio {
		na.r = w.join(na.r, b)
		w.fix(a)
		return a
	}
	nb := &w.cnodes[b-1]
	nb.l = w.join(a, nb.l)
	w.fix(b)
	return b
}

// indexClears adds the clears recorded since the last lookup to the tree.
// Indexing waits for a lookup, so that a transaction that clears without
// reading pays nothing for it.
func (w *writes) indexClears() {
	for i := int32(len(w.cnodes)); int(i) < len(w.clears)/2; i++ {
		w.cnodes = append(w.cnodes, cnode{mx: i, prio: rand.Uint32()})
		w.croot = w.insert(w.croot, i)
	}
}

// insert adds node i to tree t and returns the tree. It descends to where
// i's priority puts it and splits only the subtree found there (of O(1)
// expected size), so that it costs about one begin and one end comparison
// per level.
func (w *writes) insert(t, i int32) int32 {
	if t == 0 {
		return i + 1
	}
	n := &w.cnodes[t-1] // stays valid: insert appends no node
	if w.cnodes[i].prio > n.prio {
		ni := &w.cnodes[i]
		ni.l, ni.r = w.split(t, i)
		w.fix(i + 1)
		return i + 1
	}
	if w.cless(i, t-1) {
		n.l = w.insert(n.l, i)
	} else {
		n.r = w.insert(n.r, i)
	}
	n.mx = w.later(n.mx, i)
	return t
}

// unindex removes clear i from tree t and returns the tree.
func (w *writes) unindex(t, i int32) int32 {
	n := &w.cnodes[t-1]
	switch {
	case t-1 == i:
		return w.join(n.l, n.r)
	case w.cless(i, t-1):
		n.l = w.unindex(n.l, i)
	default:
		n.r = w.unindex(n.r, i)
	}
	w.fix(t)
	return t
}

// truncateClears drops the clears from the n-th pair on, removing those
// indexed from the tree newest first.
func (w *writes) truncateClears(n int) {
	for i := int32(len(w.cnodes)) - 1; i >= int32(n); i-- {
		w.croot = w.unindex(w.croot, i)
	}
	w.cnodes = w.cnodes[:min(n, len(w.cnodes))]
	clear(w.clears[2*n:]) // their copies are refunded: let them go
	w.clears = w.clears[:2*n]
}

// cleared reports whether key lies in a cleared range. Along the path to
// key, a node whose begin is not after key has in its left subtree only
// clears that begin no later, so one of them covers key exactly when the
// subtree's greatest end is after key.
func (w *writes) cleared(key []byte) bool {
	if len(w.cnodes) < len(w.clears)/2 {
		w.indexClears()
	}
	for t := w.croot; t != 0; {
		n := &w.cnodes[t-1]
		if bytes.Compare(w.cbegin(t-1), key) > 0 {
			t = n.l
			continue
		}
		if w.endAfter(t-1, key) || (n.l != 0 && w.endAfter(w.cnodes[n.l-1].mx, key)) {
			return true
		}
		t = n.r
	}
	return false
}
