package shed

import (
	"hash/maphash"
	"math"
	"time"
	"unsafe"
)

// tenantSlot is one slot of a tenantTable: the key, the tenant's state, its
// stamp and the direct admissions not yet counted in the state, so that
// admitting a request of a tenant whose state is cold in the CPU caches costs
// one slot, not a map's control word and slot plus the state. It is 32 bytes,
// two to a cache line (the key is held as its bytes and a 32-bit length for
// that): with 100,000 tenants the slots take 8 MiB, where 64-byte slots took
// 16 and every admission's miss went further (bench/shed/README.md).
type tenantSlot[T any] struct {
	name *byte // the key's bytes, nil for a long key (see key)
	t    *tenantState[T]
	h    uint32 // the low half of the name's hash with its high bit set; 0 marks an empty slot
	nlen uint32 // the key's length, or longKey
	seen stamp  // the coarse clock when the tenant was last seen
	// direct admissions of lane 0 (priorities 0 and below) and lane 1
	// (priority 1) since they were last folded into the state, which happens
	// before either count would overflow
	fast [lanes]struct{ n, cost uint8 }
}

// key returns the tenant's name.
func (sl *tenantSlot[T]) key() string {
	if sl.nlen == longKey {
		return sl.t.name
	}
	return unsafe.String(sl.name, sl.nlen)
}

// longKey is the length a slot records for a key whose length does not fit 32
// bits (or is that value): its key is then read from the tenant's state.
const longKey = math.MaxUint32

// slotKey returns the key fields of a slot for name.
func slotKey(name string) (*byte, uint32) {
	n := keyLen(uint64(len(name)))
	if n == longKey {
		return nil, n
	}
	return unsafe.StringData(name), n
}

// keyLen returns the length a slot records for a key of n bytes.
func keyLen(n uint64) uint32 { return uint32(min(n, longKey)) }

// stamp is a time on the coarse clock in units of 2^20 ns (about a
// millisecond), wrapping after about 50 days: ages are differences modulo
// 2^32, which is why IdleTimeout is capped at maxIdleTimeout.
type stamp uint32

// stampOf returns the stamp of a coarse time.
func stampOf(at int64) stamp { return stamp(at >> 20) }

// maxIdleTimeout is the longest IdleTimeout: less than half of a stamp's
// range, so that an age compares with it correctly.
const maxIdleTimeout = time.Duration(1<<31-1) << 20

// lanes is how many priorities a slot counts: higher ones count in their
// bucket directly.
const lanes = 2

// tenantTable is an open-addressing hash table of tenants: linear probing over a
// power-of-two array, at most 3/4 full, backward-shift deletion (no
// tombstones), keyed by a hash seeded per table so that chosen names cannot
// build long probe chains. Inserting may grow it and shrink (called between two
// passes of the reclamation hand) may shrink it; both rehash, and remove moves
// slots back, so a *tenantSlot is valid only until the table's next change.
type tenantTable[T any] struct {
	slots []tenantSlot[T]
	mask  uint32
	n     int
	seed  maphash.Seed
}

// minTableSlots is the smallest table.
const minTableSlots = 16

func newTenantTable[T any]() tenantTable[T] {
	return tenantTable[T]{
		slots: make([]tenantSlot[T], minTableSlots),
		mask:  minTableSlots - 1,
		seed:  maphash.MakeSeed(),
	}
}

// hash returns name's hash as a slot holds it. The mark of an occupied slot
// is the high bit, which no table below 2^31 slots uses as an index bit: as
// the low bit, it made every home an odd slot, so a probe past the home left
// its cache line (two slots to a line), and probes were longer: at 100,000
// tenants a fast-path admission took 79 ns of CPU in a random order and 64
// in turn, against 63 and 57 now (medians of 3 alternating rounds,
// bench/shed/fastpath_home_abab.txt).
func (tb *tenantTable[T]) hash(name string) uint32 {
	return uint32(maphash.String(tb.seed, name)) | 1<<31
}

// find returns the index of name's slot, or of the empty slot where it would go
// and false.
func (tb *tenantTable[T]) find(name string, h uint32) (int, bool) {
	for i := h & tb.mask; ; i = (i + 1) & tb.mask {
		sl := &tb.slots[i]
		if sl.h == h && sl.key() == name {
			return int(i), true
		}
		if sl.h == 0 {
			return int(i), false
		}
	}
}

// get returns name's slot, or nil.
func (tb *tenantTable[T]) get(name string) *tenantSlot[T] {
	if i, ok := tb.find(name, tb.hash(name)); ok {
		return &tb.slots[i]
	}
	return nil
}

// insert adds name, which is not in the table, with state t (whose name it
// is), and returns its slot.
func (tb *tenantTable[T]) insert(name string, h uint32, t *tenantState[T]) *tenantSlot[T] {
	if (tb.n+1)*4 > len(tb.slots)*3 {
		tb.resize(len(tb.slots) * 2)
	}
	i, _ := tb.find(name, h)
	p, n := slotKey(name)
	tb.slots[i] = tenantSlot[T]{h: h, name: p, nlen: n, t: t}
	tb.n++
	return &tb.slots[i]
}

// remove empties slot i and shifts back the slots after it that probed past it,
// so that every key stays reachable from its home without tombstones. The slot
// at i afterwards holds the next key of its run, if any.
func (tb *tenantTable[T]) remove(i int) {
	for j := i; ; {
		j = int(uint32(j+1) & tb.mask)
		sl := &tb.slots[j]
		if sl.h == 0 {
			break
		}
		// The key at j stays if its home lies cyclically in (i, j].
		home := int(sl.h & tb.mask)
		if (i <= j && i < home && home <= j) || (i > j && (i < home || home <= j)) {
			continue
		}
		tb.slots[i] = *sl
		i = j
	}
	tb.slots[i] = tenantSlot[T]{}
	tb.n--
}

// shrink halves the table while it is less than 1/8 full.
func (tb *tenantTable[T]) shrink() {
	size := len(tb.slots)
	for size > minTableSlots && tb.n*8 < size {
		size /= 2
	}
	if size != len(tb.slots) {
		tb.resize(size)
	}
}

// resize rehashes into an array of size slots (a power of two).
func (tb *tenantTable[T]) resize(size int) {
	old := tb.slots
	tb.slots = make([]tenantSlot[T], size)
	tb.mask = uint32(size - 1)
	for k := range old {
		if sl := &old[k]; sl.h != 0 {
			i, _ := tb.find(sl.key(), sl.h)
			tb.slots[i] = *sl
		}
	}
}

// admit counts a direct admission of cost at lane l, folding the slot's counts
// into the tenant's state first if they could overflow. A cost too large for
// the slot counts in the state directly.
func (sl *tenantSlot[T]) admit(l int, cost int64) {
	f := &sl.fast[l]
	if f.n == math.MaxUint8 || cost > math.MaxUint8-int64(f.cost) {
		sl.fold()
		if cost > math.MaxUint8 {
			sl.t.fast[l].n++
			sl.t.fast[l].cost = satAdd(sl.t.fast[l].cost, cost)
			return
		}
	}
	f.n++
	f.cost += uint8(cost)
}

// fold moves the slot's direct-admission counts into the tenant's state.
func (sl *tenantSlot[T]) fold() {
	for l := range sl.fast {
		f := &sl.fast[l]
		sl.t.fast[l].n += int64(f.n)
		sl.t.fast[l].cost = satAdd(sl.t.fast[l].cost, int64(f.cost))
	}
	sl.fast = [lanes]struct{ n, cost uint8 }{}
}

// admitted returns the direct admissions of lane l, in the slot and the state.
func (sl *tenantSlot[T]) admitted(l int) (n, cost int64) {
	return sl.t.fast[l].n + int64(sl.fast[l].n), satAdd(sl.t.fast[l].cost, int64(sl.fast[l].cost))
}
