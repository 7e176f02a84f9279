package txn

import (
	"bytes"
	"fmt"
	"math"
	"slices"
)

// Limits of one transaction's writes. The write buffer stores lengths and
// indices in 32 bits; [Tx.Put] and [Tx.Delete] refuse a write past these
// limits with an error wrapping [ErrTooLarge] and leave the transaction as it
// was. They apply whatever the memory budget (none, with MemoryBudget
// negative) and are checked before it: a write past them gets their error,
// even where the budget would refuse it too, and merges no reads.
const (
	// MaxKeySize is the longest key, in bytes, that Put and Delete accept.
	MaxKeySize = math.MaxInt32
	// MaxValueSize is the longest value, in bytes, that Put accepts.
	MaxValueSize = math.MaxInt32
	// MaxWrites is the most distinct keys a transaction's Puts and Deletes
	// can hold; writing a key it already holds does not count again.
	MaxWrites = math.MaxInt32
)

// limits are the write buffer's limits in force: the exported constants,
// and the number of arena chunks, which 32-bit chunk indices bound. Tests
// lower them.
var limits = struct{ key, value, writes, chunks int }{
	MaxKeySize, MaxValueSize, MaxWrites, math.MaxInt32,
}

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
	cnodes []cnode  // the clears a lookup indexed (clears.go): node i is pair i
	croot  int32    // reference to the tree's root, 0 if empty

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

// needChunk reports whether n more bytes need a new chunk.
func (w *writes) needChunk(n int) bool {
	last := len(w.chunks) - 1
	return last < 0 || cap(w.chunks[last])-len(w.chunks[last]) < n
}

// reserve makes room for n bytes in the last chunk and returns its index.
func (w *writes) reserve(n int) int32 {
	last := len(w.chunks) - 1
	if w.needChunk(n) {
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

// wpos is where a write of a key goes: the key's hash, its entry (-1 if
// the key holds none) and, for a new entry, its table slot.
type wpos struct {
	h    uint64
	i    int32
	slot int
}

// locate returns where a write of key = val (nil val: a deletion) goes, or
// an error wrapping ErrTooLarge if the buffer cannot take it. It stores
// nothing, so a refused write leaves the buffer as it was.
func (w *writes) locate(key, val []byte) (wpos, error) {
	if len(key) > limits.key {
		return wpos{}, fmt.Errorf("%w: key of %d bytes, over the limit of %d", ErrTooLarge, len(key), limits.key)
	}
	if len(val) > limits.value {
		return wpos{}, fmt.Errorf("%w: value of %d bytes, over the limit of %d", ErrTooLarge, len(val), limits.value)
	}
	h := w.idx.hash(key)
	i, slot := w.idx.find(w, key, h)
	need := len(val)
	if i < 0 {
		if len(w.ents) >= limits.writes {
			return wpos{}, fmt.Errorf("%w: a new key past the limit of %d written keys", ErrTooLarge, limits.writes)
		}
		need += len(key)
	}
	if len(w.chunks) >= limits.chunks && w.needChunk(need) {
		return wpos{}, fmt.Errorf("%w: the write buffer holds its limit of %d chunks", ErrTooLarge, limits.chunks)
	}
	return wpos{h: h, i: i, slot: slot}, nil
}

// cost is the bytes a write of key = val at p adds to the buffer: a new
// key's bytes and entry, and the value; a key the buffer holds takes only
// the value (its entry is updated in place), and the undo record kept for
// it while a savepoint is open.
func (w *writes) cost(p wpos, key, val []byte) int {
	if p.i < 0 {
		return len(key) + len(val) + entryOverhead
	}
	if len(w.sps) > 0 {
		return len(val) + entryOverhead
	}
	return len(val)
}

// put buffers key = val (or its deletion) at p, which locate returned with
// no change to w since.
func (w *writes) put(p wpos, key, val []byte, del bool) {
	if i := p.i; i >= 0 {
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
	e := entry{kc: c, vc: c, koff: w.add(c, key), klen: int32(len(key)), del: del, hash: p.h}
	if !del {
		e.voff, e.vlen = w.add(c, val), int32(len(val))
	}
	i := int32(len(w.ents))
	w.ents = append(w.ents, e)
	w.idx.insert(w, i, p.h, p.slot)
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
// write-range count to restore and the bytes to refund: an entry's overhead
// per undo record it dropped (that of an overwrite or range delete, or the
// entry of a new key, which leaves ents and the index), and the clears it
// dropped (rangesCost). The bytes of the undone keys and values stay in the
// chunks and stay charged.
//
// Its cost is that of the undo records since sp, not of the whole buffer:
// the undo log holds new entries in index order, so undoing it backwards
// removes each from the index newest first (table.removeLast). A sorted
// order that is still valid stays, minus the entries removed. The clears
// since sp leave the clear tree one by one too (truncateClears).
func (w *writes) rollbackTo(sp Savepoint) (wranges, refund int) {
	m := w.sps[sp.depth-1]
	n := len(w.ents)
	for j := len(w.undo) - 1; j >= m.undo; j-- {
		u := w.undo[j]
		if u.existed {
			w.ents[u.i] = u.prev // same key: its slot and sorted place stay
			continue
		}
		w.idx.removeLast(u.i, w.ents[u.i].hash)
		w.ents = w.ents[:u.i]
	}
	if w.sortedOK && len(w.ents) < n {
		kept := int32(len(w.ents))
		w.sorted = slices.DeleteFunc(w.sorted, func(i int32) bool { return i >= kept })
	}
	refund = entryOverhead*(len(w.undo)-m.undo) + rangesCost(w.clears[m.clears:])
	w.undo = w.undo[:m.undo]
	w.truncateClears(m.clears / 2)
	w.sps = w.sps[:sp.depth]
	return m.wranges, refund
}

// release closes sp and the savepoints nested in it, keeping their writes.
// Closing the last drops the undo log; it returns the number of undo
// records of overwrites dropped.
func (w *writes) release(sp Savepoint) (dropped int) {
	w.sps = w.sps[:sp.depth-1]
	if len(w.sps) == 0 {
		dropped = w.overwrites(0)
		w.undo = w.undo[:0]
	}
	return dropped
}

// overwrites counts the undo records from the i-th on that restore an
// entry (an overwrite's or a range delete's), each charged an entry's
// overhead while kept; those of new entries are covered by the entry's
// own charge.
func (w *writes) overwrites(i int) int {
	n := 0
	for _, u := range w.undo[i:] {
		if u.existed {
			n++
		}
	}
	return n
}

// liveIn counts the buffered writes in [begin, end) that are not
// deletions: those a range delete would keep an undo record for.
func (w *writes) liveIn(begin, end []byte) int {
	n := 0
	for _, i := range w.inRange(begin, end) {
		if !w.ents[i].del {
			n++
		}
	}
	return n
}

// rangesCost is the bytes charged for flattened [begin, end) pairs (range
// deletes, write-conflict ranges): their bounds and an entry's overhead each.
func rangesCost(pairs [][]byte) int {
	n := 0
	for i := 0; i+1 < len(pairs); i += 2 {
		n += len(pairs[i]) + len(pairs[i+1]) + entryOverhead
	}
	return n
}
