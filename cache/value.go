package cache

import (
	"reflect"
	"unsafe"
)

// An entry holds its value in one of two ways, chosen once per cache by New:
//
//   - word values (V has no pointers and fits in 8 bytes: integers, floats,
//     bools and types defined from them) live in the entry's bits, updated in
//     place with its freshAt: an update allocates nothing. A writer stores
//     the value before the time and a reader loads the time before the value,
//     so a reader that sees a new time also sees the new value; the reverse
//     pairing (an older time with the newer value) only makes the value look
//     older than it is, which the staleness bound tolerates. That holds only
//     while the time does not go back, so an update whose time is older (a
//     refill, vouched by checkpoints only; a slow fill) replaces the entry
//     as for other values.
//   - other values live in the entry's val, which never changes: an update
//     replaces the entry in its index slot with a new one (one allocation,
//     the same node), so a reader always sees a value with its own version
//     and time, and reads the value from the entry it found, not from
//     another object.
//
// Readers take no lock either way; writers hold the key's shard lock.

// isWord reports whether V can be held in a node's bits: no pointers, at most
// 8 bytes.
func isWord[V any]() bool {
	t := reflect.TypeFor[V]()
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return t.Size() <= 8
	}
	return false
}

// toBits returns the bytes of a word value v in a uint64.
func toBits[V any](v V) uint64 {
	var b uint64
	*(*V)(unsafe.Pointer(&b)) = v
	return b
}

// fromBits is the inverse of toBits.
func fromBits[V any](b uint64) V {
	return *(*V)(unsafe.Pointer(&b))
}

// load returns e's value and the time it was vouched fresh. It takes no lock.
func (c *Cache[K, V]) load(e *entry[K, V]) (V, int64) {
	if c.word {
		at := e.freshAt.Load()
		return fromBits[V](e.bits.Load()), at
	}
	return e.val, e.freshAt.Load()
}

// newEntry returns an entry for key (hash h) at policy node p holding it, not
// yet in the index.
func (c *Cache[K, V]) newEntry(key K, h uint64, p *node[K], it item[V]) *entry[K, V] {
	e := &entry[K, V]{key: key, hash: h, p: p, version: it.version}
	if c.word {
		e.bits.Store(toBits(it.val))
	} else {
		e.val = it.val
	}
	e.freshAt.Store(it.freshAt)
	return e
}

// update stores it as the value of e, which is in s's index. The caller holds
// s.mu.
func (c *Cache[K, V]) update(s *shard[K, V], e *entry[K, V], it item[V]) {
	if c.word {
		// freshAt changes only under s.mu: at is current.
		if at := e.freshAt.Load(); it.freshAt >= at {
			// In place only when the time does not go back: a reader may pair
			// the old time with the new value, which must not make the value
			// look fresher than it is (a refill stores unvouched, a slow fill an
			// older start). Otherwise a new entry, as for other values.
			e.bits.Store(toBits(it.val)) // value before time: see above
			if it.freshAt != at {
				// Without a bound both are unvouched, and an atomic store is a
				// locked instruction on amd64 where a load is a plain one.
				e.freshAt.Store(it.freshAt)
			}
			e.version = it.version
			return
		}
	}
	s.ix.replace(e, c.newEntry(e.key, e.hash, e.p, it))
}
