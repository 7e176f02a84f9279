package shed

import (
	"hash/maphash"
	"math"
)

// tenantSlot is one slot of a tenantTable: the key, the tenant's state, and the
// fields the fast path writes (its stamp and its direct admissions), so that
// admitting a request of a tenant whose state is cold in the CPU caches costs
// one cache line, not a map's control word and slot plus the state. It is 64
// bytes, one cache line; the table's array is line-aligned whenever it is
// larger than a page, which is when the tenants no longer fit in the caches.
type tenantSlot[T any] struct {
	h        uint64 // the name's hash with its low bit set; 0 marks an empty slot
	name     string
	t        *tenantState[T]
	lastSeen int64 // coarse time of the last touch
	// direct admissions of priorities 0 and 1 since they were last folded into
	// t.fast, which happens before either would overflow (see fold)
	fast [2]struct{ n, cost uint32 }
	prio int32 // len(t.buckets), read here so that admit need not touch t
	_    uint32
}

// tenantTable is an open-addressing hash table of tenants: linear probing over a
// power-of-two array, at most 3/4 full, backward-shift deletion (no
// tombstones), keyed by a hash seeded per table so that chosen names cannot
// build long probe chains. Inserting may grow it and shrink (called between two
// passes of the reclamation hand) may shrink it; both rehash, and remove moves
// slots back, so a *tenantSlot is valid only until the table's next change.
type tenantTable[T any] struct {
	slots []tenantSlot[T]
	mask  uint64
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

func (tb *tenantTable[T]) hash(name string) uint64 {
	return maphash.String(tb.seed, name) | 1
}

// find returns the index of name's slot, or of the empty slot where it would go
// and false.
func (tb *tenantTable[T]) find(name string, h uint64) (int, bool) {
	for i := h & tb.mask; ; i = (i + 1) & tb.mask {
		sl := &tb.slots[i]
		if sl.h == h && sl.name == name {
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

// insert adds name, which is not in the table, with state t, and returns its slot.
func (tb *tenantTable[T]) insert(name string, h uint64, t *tenantState[T]) *tenantSlot[T] {
	if (tb.n+1)*4 > len(tb.slots)*3 {
		tb.resize(len(tb.slots) * 2)
	}
	i, _ := tb.find(name, h)
	tb.slots[i] = tenantSlot[T]{h: h, name: name, t: t, prio: int32(len(t.buckets))}
	tb.n++
	return &tb.slots[i]
}

// remove empties slot i and shifts back the slots after it that probed past it,
// so that every key stays reachable from its home without tombstones. The slot
// at i afterwards holds the next key of its run, if any.
func (tb *tenantTable[T]) remove(i int) {
	for j := i; ; {
		j = int(uint64(j+1) & tb.mask)
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
	tb.mask = uint64(size - 1)
	for k := range old {
		if sl := &old[k]; sl.h != 0 {
			i, _ := tb.find(sl.name, sl.h)
			tb.slots[i] = *sl
		}
	}
}

// admit counts a direct admission of cost at priority p (< len(fast)), folding
// the slot's counts into the tenant's state first if they could overflow.
func (sl *tenantSlot[T]) admit(p int, cost int64) {
	f := &sl.fast[p]
	if f.n == math.MaxUint32 || cost > math.MaxUint32-int64(f.cost) {
		sl.fold()
		if cost > math.MaxUint32 { // too large for the slot: count it in the state
			sl.t.fast[p].n++
			sl.t.fast[p].cost += cost
			return
		}
	}
	f.n++
	f.cost += uint32(cost)
}

// fold moves the slot's direct-admission counts into the tenant's state.
func (sl *tenantSlot[T]) fold() {
	for p := range sl.fast {
		f := &sl.fast[p]
		if f.n != 0 || f.cost != 0 {
			sl.t.fast[p].n += int64(f.n)
			sl.t.fast[p].cost += int64(f.cost)
			*f = struct{ n, cost uint32 }{}
		}
	}
}

// admitted returns the direct admissions of priority p, in the slot and the state.
func (sl *tenantSlot[T]) admitted(p int) (n, cost int64) {
	return sl.t.fast[p].n + int64(sl.fast[p].n), sl.t.fast[p].cost + int64(sl.fast[p].cost)
}
