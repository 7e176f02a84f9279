package cache

import (
	"hash/maphash"
	"unsafe"

	"github.com/tierkit/tierkit/internal/mix"
)

// hash returns the key's hash: a seeded mix for integer keys (cheaper than
// maphash), maphash otherwise. The key's kind was found once by New: a type
// switch on any(key) per call costs more than the mix itself.
func (c *Cache[K, V]) hash(key K) uint64 {
	p := unsafe.Pointer(&key)
	switch c.kind {
	case kind64:
		return mix.Mix64(*(*uint64)(p) ^ c.salt)
	case kind32:
		return mix.Mix64(uint64(*(*uint32)(p)) ^ c.salt)
	case kindString:
		return maphash.String(c.seed, *(*string)(p))
	}
	return maphash.Comparable(c.seed, key)
}

// keyKind says how hash reads a key.
type keyKind uint8

const (
	kindOther  keyKind = iota // maphash.Comparable
	kind64                    // a 64-bit integer (int, int64, uint, uint64, uintptr on 64-bit)
	kind32                    // a 32-bit integer (int32, uint32)
	kindString                // a string
)

// kindOf returns the kind of K, by the dynamic type of its zero value (only
// the exact predeclared types, not types defined from them).
func kindOf[K comparable]() keyKind {
	var zero K
	switch any(zero).(type) {
	case string:
		return kindString
	case int64, uint64:
		return kind64
	case int, uint, uintptr:
		if unsafe.Sizeof(zero) == 8 {
			return kind64
		}
		return kind32
	case int32, uint32:
		return kind32
	}
	return kindOther
}
