package cache

import (
	"reflect"
	"unsafe"
)

// A node holds its value in one of two ways, chosen once per cache by New:
//
//   - word values (V has no pointers and fits in 8 bytes: integers, floats,
//     bools and types defined from them) live in the node's bits and freshAt,
//     two atomic words updated in place: an update allocates nothing. A writer
//     stores the value before the time and a reader loads the time before the
//     value, so a reader that sees a new time also sees the new value; the
//     reverse pairing (an older time with the newer value) only makes the
//     value look older than it is, which the staleness bound tolerates.
//   - other values live in an immutable item behind the node's atomic
//     pointer: an insert or update stores a new item (one small allocation),
//     so a reader always sees a value with its own version and time.
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

// load returns n's value and the time it was vouched fresh. It takes no lock.
func (c *Cache[K, V]) load(n *node[K, V]) (V, int64) {
	if c.word {
		at := n.freshAt.Load()
		return fromBits[V](n.bits.Load()), at
	}
	it := n.it.Load()
	return it.val, it.freshAt
}

// initItem sets the item of a node not yet in the index.
func (c *Cache[K, V]) initItem(n *node[K, V], it item[V]) {
	if c.word {
		n.bits.Store(toBits(it.val))
		n.freshAt.Store(it.freshAt)
		n.version = it.version
		return
	}
	p := new(item[V])
	*p = it
	n.it.Store(p)
}

// setItem replaces the item of a node in the index. The caller holds the
// node's shard lock.
func (c *Cache[K, V]) setItem(n *node[K, V], it item[V]) {
	if c.word {
		n.bits.Store(toBits(it.val)) // value before time: see above
		n.freshAt.Store(it.freshAt)
		n.version = it.version
		return
	}
	p := new(item[V])
	*p = it
	n.it.Store(p)
}

// versionOf returns the CDC version n's value reflects. The caller holds the
// node's shard lock.
func (c *Cache[K, V]) versionOf(n *node[K, V]) uint64 {
	if c.word {
		return n.version
	}
	return n.it.Load().version
}
