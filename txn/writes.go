package txn

import (
	"bytes"
	"slices"
)

// writes is a transaction's write buffer: the latest write per key, range
// clears, and an undo log for savepoints. Keys and values are copied into
// append-only chunks (1 KiB doubling to 64 KiB) and entries refer to them by
// chunk and offset, so entries hold no pointers: storing them costs no GC
// write barrier and the GC does not scan them. Chunk bytes never change once
// written, so slices handed to callers stay valid; a transaction that handed
// none out (it only wrote, or read the engine) passes its last chunk on to
// the next transaction through the pool.
type writes struct {
	idx    table // key -> index in ents
	ents   []entry
	chunks [][]byte // the last one is being filled
	handed bool     // a slice of a chunk was returned to the caller
	clears [][]byte // flattened [begin, end) pairs, in order (own copies)

	sorted   []int32 // indices of ents by key; valid when sortedOK
	sortedOK bool

	undo []undoRec // recorded only while a savepoint is open
	sps  []spMark
	gen  uint64
}

type entry struct {
	koff, voff int
	kc, vc     int32 // chunk indices
	klen, vlen int32
	del        bool
	hash       uint64 // of the key, for idx
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

// reserve makes room for n bytes in the last chunk and returns its index.
func (w *writes) reserve(n int) int32 {
	last := len(w.chunks) - 1
	if last < 0 || cap(w.chunks[last])-len(w.chunks[last]) < n {
		size := 1 << 10
		if last >= 0 {
			size = min(2*cap(w.chunks[last]), 64<<10)
		}
		w.chunks = append(w.chunks, make([]byte, 0, max(size, n)))
		last++
	}
	return int32(last)
}

// add appends b to chunk c (reserved) and returns its offset.
func (w *writes) add(c int32, b []byte) int {
	off := len(w.chunks[c])
	w.chunks[c] = append(w.chunks[c], b...)
	return off
}

// key returns entry e's key (capacity-limited: appending to it copies).
func (w *writes) key(e *entry) []byte {
	end := e.koff + int(e.klen)
	return w.chunks[e.kc][e.koff:end:end]
}

// val returns entry e's value, nil for a deletion, non-nil otherwise.
func (w *writes) val(e *entry) []byte {
	if e.del {
		return nil
	}
	end := e.voff + int(e.vlen)
	return w.chunks[e.vc][e.voff:end:end]
}

func (w *writes) keyOf(i int32) []byte { return w.key(&w.ents[i]) }

// lookup returns the buffered write of key: its value, whether it is a
// deletion, and whether there is one.
func (w *writes) lookup(key []byte) (val []byte, del, ok bool) {
	if i, _ := w.idx.find(w, key, w.idx.hash(key)); i >= 0 {
		e := &w.ents[i]
		return w.val(e), e.del, true
	}
	return nil, false, false
}

func (w *writes) put(key, val []byte, del bool) {
	h := w.idx.hash(key)
	i, slot := w.idx.find(w, key, h)
	if i >= 0 {
		if len(w.sps) > 0 {
			w.undo = append(w.undo, undoRec{i: i, prev: w.ents[i], existed: true})
		}
		e := &w.ents[i]
		e.del, e.vlen = del, int32(len(val))
		if !del {
			e.vc = w.reserve(len(val))
			e.voff = w.add(e.vc, val)
		}
		return
	}
	c := w.reserve(len(key) + len(val))
	e := entry{kc: c, vc: c, koff: w.add(c, key), klen: int32(len(key)), del: del, hash: h}
	if !del {
		e.voff, e.vlen = w.add(c, val), int32(len(val))
	}
	i = int32(len(w.ents))
	w.ents = append(w.ents, e)
	w.idx.insert(w, i, h, slot)
	w.sortedOK = false
	if len(w.sps) > 0 {
		w.undo = append(w.undo, undoRec{i: i})
	}
}

// clearRange records a clear and marks the buffered writes in it deleted.
func (w *writes) clearRange(begin, end []byte) {
	w.clears = append(w.clears, bytes.Clone(nonNil(begin)), bytes.Clone(end))
	for _, i := range w.inRange(begin, end) {
		if e := &w.ents[i]; !e.del {
			if len(w.sps) > 0 {
				w.undo = append(w.undo, undoRec{i: i, prev: *e, existed: true})
			}
			e.del = true
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
		slices.SortFunc(w.sorted, func(a, b int32) int { return bytes.Compare(w.keyOf(a), w.keyOf(b)) })
		w.sortedOK = true
	}
	lo, _ := slices.BinarySearchFunc(w.sorted, begin, func(i int32, k []byte) int {
		return bytes.Compare(w.keyOf(i), k)
	})
	hi := len(w.sorted)
	if end != nil {
		hi, _ = slices.BinarySearchFunc(w.sorted, end, func(i int32, k []byte) int {
			return bytes.Compare(w.keyOf(i), k)
		})
	}
	if hi < lo {
		return nil
	}
	return w.sorted[lo:hi]
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
