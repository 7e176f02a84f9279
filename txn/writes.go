package txn

import (
	"bytes"
	"slices"
	"strings"
	"unsafe"
)

// writes is a transaction's write buffer: the latest write per key, range
// clears, and an undo log for savepoints. Keys and values are copied into an
// append-only arena, so steady-state writes do not allocate per call.
type writes struct {
	idx    table // key -> index in ents
	ents   []entry
	clears [][]byte // flattened [begin, end) pairs, in order

	sorted   []int32 // indices of ents by key; valid when sortedOK
	sortedOK bool

	undo []undoRec // recorded only while a savepoint is open
	sps  []spMark
	gen  uint64

	arena []byte
}

type entry struct {
	key  string // points into the arena
	val  []byte
	del  bool
	hash uint64 // of key, for idx
}

type undoRec struct {
	i       int32
	prev    entry
	existed bool
}

type spMark struct {
	undo, clears, wranges int
	gen                   uint64
}

func (w *writes) empty() bool { return len(w.ents) == 0 && len(w.clears) == 0 }

// copyBytes copies b into the arena. Chunks are never reused or moved, so
// earlier copies stay valid.
func (w *writes) copyBytes(b []byte) []byte {
	if len(b) == 0 {
		return []byte{}
	}
	if cap(w.arena)-len(w.arena) < len(b) {
		n := max(min(2*cap(w.arena), 64<<10), 1<<10, len(b))
		w.arena = make([]byte, 0, n)
	}
	off := len(w.arena)
	w.arena = append(w.arena, b...)
	return w.arena[off:len(w.arena):len(w.arena)]
}

func (w *writes) lookup(key []byte) (entry, bool) {
	if i, _ := w.idx.find(w.ents, key, w.idx.hash(key)); i >= 0 {
		return w.ents[i], true
	}
	return entry{}, false
}

func (w *writes) put(key, val []byte, del bool) {
	var v []byte
	if !del {
		v = w.copyBytes(val)
	}
	h := w.idx.hash(key)
	i, slot := w.idx.find(w.ents, key, h)
	if i >= 0 {
		if len(w.sps) > 0 {
			w.undo = append(w.undo, undoRec{i: i, prev: w.ents[i], existed: true})
		}
		w.ents[i].val, w.ents[i].del = v, del
		return
	}
	kb := w.copyBytes(key)
	i = int32(len(w.ents))
	w.ents = append(w.ents, entry{key: unsafe.String(unsafe.SliceData(kb), len(kb)), val: v, del: del, hash: h})
	w.idx.insert(w.ents, i, h, slot)
	w.sortedOK = false
	if len(w.sps) > 0 {
		w.undo = append(w.undo, undoRec{i: i})
	}
}

// clearRange records a clear and marks the buffered writes in it deleted.
func (w *writes) clearRange(begin, end []byte) {
	w.clears = append(w.clears, w.copyBytes(begin), copyEnd(w, end))
	for _, i := range w.inRange(begin, end) {
		if e := &w.ents[i]; !e.del {
			if len(w.sps) > 0 {
				w.undo = append(w.undo, undoRec{i: i, prev: *e, existed: true})
			}
			e.val, e.del = nil, true
		}
	}
}

// cleared reports whether key lies in a cleared range.
func (w *writes) cleared(key []byte) bool {
	c := w.clears
	for i := 0; i+1 < len(c); i += 2 {
		if bytes.Compare(c[i], key) <= 0 && (c[i+1] == nil || bytes.Compare(key, c[i+1]) < 0) {
			return true
		}
	}
	return false
}

// inRange returns the indices of buffered keys in [begin, end), ascending.
func (w *writes) inRange(begin, end []byte) []int32 {
	if !w.sortedOK {
		w.sorted = w.sorted[:0]
		for i := range w.ents {
			w.sorted = append(w.sorted, int32(i))
		}
		slices.SortFunc(w.sorted, func(a, b int32) int { return strings.Compare(w.ents[a].key, w.ents[b].key) })
		w.sortedOK = true
	}
	lo, _ := slices.BinarySearchFunc(w.sorted, begin, func(i int32, k []byte) int {
		return strings.Compare(w.ents[i].key, unsafe.String(unsafe.SliceData(k), len(k)))
	})
	hi := len(w.sorted)
	if end != nil {
		hi, _ = slices.BinarySearchFunc(w.sorted, end, func(i int32, k []byte) int {
			return strings.Compare(w.ents[i].key, unsafe.String(unsafe.SliceData(k), len(k)))
		})
	}
	if hi < lo {
		return nil
	}
	return w.sorted[lo:hi]
}

func (w *writes) keyOf(i int32) []byte {
	k := w.ents[i].key
	return unsafe.Slice(unsafe.StringData(k), len(k))
}

// savepoint pushes a mark; wranges is the caller's write-range count.
func (w *writes) savepoint(wranges int) Savepoint {
	w.gen++
	w.sps = append(w.sps, spMark{undo: len(w.undo), clears: len(w.clears), wranges: wranges, gen: w.gen})
	return Savepoint{depth: len(w.sps), gen: w.gen}
}

func (w *writes) find(sp Savepoint) bool {
	return sp.depth > 0 && sp.depth <= len(w.sps) && w.sps[sp.depth-1].gen == sp.gen
}

// rollbackTo undoes every write since sp (which stays open) and returns the
// write-range count to restore.
func (w *writes) rollbackTo(sp Savepoint) int {
	m := w.sps[sp.depth-1]
	for j := len(w.undo) - 1; j >= m.undo; j-- {
		u := w.undo[j]
		if u.existed {
			w.ents[u.i] = u.prev
			continue
		}
		w.ents = w.ents[:u.i]
	}
	w.idx.rebuild(w.ents)
	w.undo = w.undo[:m.undo]
	w.clears = w.clears[:m.clears]
	w.sps = w.sps[:sp.depth]
	w.sortedOK = false
	return m.wranges
}

// release closes sp and the savepoints nested in it, keeping their writes.
func (w *writes) release(sp Savepoint) {
	w.sps = w.sps[:sp.depth-1]
	if len(w.sps) == 0 {
		w.undo = w.undo[:0]
	}
}
