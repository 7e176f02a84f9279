package txn

import (
	"bytes"
	"hash/maphash"
)

// table indexes a write buffer's entries by key: open addressing with linear
// probing over entry indices, using the hash stored in each entry. It hashes
// a key once per operation where a Go map would hash twice on an insert
// after a miss, and holds no pointers for the GC to scan.
//
// Entries are inserted in index order and leave only by savepoint rollback,
// newest first (see removeLast), so the slots are always those that
// inserting ents in index order into an empty table gives.
type table struct {
	slots []uint32 // entry index + 1; 0 is empty; len is 0 or a power of two
	n     int      // occupied slots
	seed  maphash.Seed
	ready bool // seed set
}

func (t *table) hash(key []byte) uint64 {
	if !t.ready {
		t.seed, t.ready = maphash.MakeSeed(), true
	}
	return maphash.Bytes(t.seed, key)
}

// find returns the index of key's entry, or -1 and the slot where it would
// go.
func (t *table) find(w *writes, key []byte, h uint64) (idx int32, slot int) {
	if len(t.slots) == 0 {
		return -1, -1
	}
	mask := len(t.slots) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return -1, i
		}
		if e := &w.ents[s-1]; e.hash == h && bytes.Equal(w.key(e), key) {
			return int32(s - 1), i
		}
	}
}

// insert records entry idx (with hash h) at slot, which find returned for
// its key, growing the table first if needed.
func (t *table) insert(w *writes, idx int32, h uint64, slot int) {
	if slot < 0 || (t.n+1)*4 > len(t.slots)*3 {
		t.grow(w.ents[:idx])
		slot = t.freeSlot(h)
	}
	t.slots[slot] = uint32(idx) + 1
	t.n++
}

func (t *table) freeSlot(h uint64) int {
	mask := len(t.slots) - 1
	i := int(h) & mask
	for t.slots[i] != 0 {
		i = (i + 1) & mask
	}
	return i
}

// grow doubles the table and re-inserts ents.
func (t *table) grow(ents []entry) {
	t.slots = make([]uint32, max(16, 2*len(t.slots)))
	t.rebuild(ents)
}

// rebuild re-inserts ents into the current slots.
func (t *table) rebuild(ents []entry) {
	clear(t.slots)
	t.n = 0
	for i := range ents {
		t.slots[t.freeSlot(ents[i].hash)] = uint32(i) + 1
		t.n++
	}
}

// removeLast removes entry idx, with hash h, the newest entry in the table.
// Clearing its slot is enough: every older entry was inserted when that slot
// was empty, so no older entry's probe passes over it, and the result is the
// table of the entries before idx. It costs a probe, not a rebuild, so
// rolling back a few writes does not pay for the writes made before them.
func (t *table) removeLast(idx int32, h uint64) {
	mask := len(t.slots) - 1
	i := int(h) & mask
	for t.slots[i] != uint32(idx)+1 {
		i = (i + 1) & mask
	}
	t.slots[i] = 0
	t.n--
}

func (t *table) reset() {
	clear(t.slots)
	t.n = 0
}
