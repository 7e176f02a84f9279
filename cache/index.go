package cache

import (
	"math/bits"
	"sync/atomic"
)

// index is one shard's hash table from key to entry. Readers never lock: they
// load the table and the slots with atomic loads. Writers hold the shard's lock,
// which serialises every change of the index.
//
// A table is an array of buckets, each a word of 8-bit hash tags, six entry
// slots and an overflow chain. A key stays in the slot it was put in until it is removed (no
// compaction, no move between slots), so a reader scanning a bucket while a
// writer changes other slots finds every key that was present before it started
// and is still present. Growing builds a new table and publishes it with one
// atomic store; the old one is never written again, so a reader still on it sees
// the index as it was at the swap, as if its lookup had happened just before.
//
// The zero index is empty and usable.
//
// tab sits alone on its cache line: every lookup loads it, and a writer's
// stores to the fields around it (the shard's lock, count) would otherwise
// evict that line from the other cores' caches, so that their next lookup in
// the shard waits for a transfer.
type index[K comparable, V any] struct {
	_     [cacheLine - 8]byte
	tab   atomic.Pointer[table[K, V]] // read without the lock, stored under it
	_     [cacheLine - 8]byte
	count int // shard lock: entries in the table
}

// cacheLine is the size of a cache line, for padding.
const cacheLine = 64

// table is an immutable-shape array of buckets: len(buckets) is a power of two.
type table[K comparable, V any] struct {
	buckets []bucket[K, V]
	mask    uint64
}

// bucketSlots is the number of slots in a bucket: the tag word, 6 entry
// pointers and the overflow pointer fill one 64-byte cache line.
const bucketSlots = 6

// bucket holds up to bucketSlots entries whose hashes select it, and chains to an
// overflow bucket when full. tags holds one byte per slot, the top byte of the
// slot's hash with the high bit set (0 marks a free slot), so that a lookup
// finds its candidates on the bucket's cache line and dereferences only those.
type bucket[K comparable, V any] struct {
	tags     atomic.Uint64
	entries  [bucketSlots]atomic.Pointer[entry[K, V]]
	overflow atomic.Pointer[bucket[K, V]]
}

// minBuckets is the size of a new table. A table doubles when it holds 3.5
// entries per bucket on average: then about 6% of buckets need an overflow
// (Poisson tail of 7 or more), a lookup mostly reads one cache line, and the
// table costs 18 to 37 bytes per entry.
const minBuckets = 4

// tagOf returns the tag byte of hash h (never 0).
func tagOf(h uint64) uint64 { return h>>56 | 0x80 }

// Byte-wise constants for matchTags.
const (
	lowBits  = 0x0101010101010101
	highBits = 0x8080808080808080
)

// matchTags returns a mask with the high bit of every byte of tags equal to
// tag set (the zero-byte test of "Bit Twiddling Hacks"). It may also flag a
// byte above a true match; the caller checks the entry's key anyway.
func matchTags(tags, tag uint64) uint64 {
	x := tags ^ (tag * lowBits)
	return (x - lowBits) &^ x & highBits
}

// bucketOf returns the bucket of hash h. The shard is picked by the low bits of
// h, so the bucket uses the bits above them.
func (t *table[K, V]) bucketOf(h uint64) *bucket[K, V] {
	return &t.buckets[(h>>shardBits)&t.mask]
}

// get returns the entry of key (hash h), or nil. It is safe without the lock.
func (ix *index[K, V]) get(key K, h uint64) *entry[K, V] {
	t := ix.tab.Load()
	if t == nil {
		return nil
	}
	tag := tagOf(h)
	for b := t.bucketOf(h); b != nil; b = b.overflow.Load() {
		for m := matchTags(b.tags.Load(), tag); m != 0; m &= m - 1 {
			i := bits.TrailingZeros64(m) >> 3
			if i >= bucketSlots {
				break
			}
			// Tag and slot are not written together: a slot being reused may
			// show the old tag with the new entry, or nil. The key decides.
			if e := b.entries[i].Load(); e != nil && e.hash == h && e.key == key {
				return e
			}
		}
	}
	return nil
}

// entryOf returns the entry whose policy node is p, or nil. It compares
// nodes, not keys, so it also finds the entry of a key not equal to itself
// (a float NaN), which get never does. The caller holds the shard lock.
func (ix *index[K, V]) entryOf(p *node[K]) *entry[K, V] {
	t := ix.tab.Load()
	if t == nil {
		return nil
	}
	tag := tagOf(p.hash)
	for b := t.bucketOf(p.hash); b != nil; b = b.overflow.Load() {
		for m := matchTags(b.tags.Load(), tag); m != 0; m &= m - 1 {
			i := bits.TrailingZeros64(m) >> 3
			if i >= bucketSlots {
				break
			}
			if e := b.entries[i].Load(); e != nil && e.p == p {
				return e
			}
		}
	}
	return nil
}

// tags returns the tag word of h's bucket (0 for an empty index). It is safe
// without the lock: lookahead only (GetMany's warmLookups).
func (ix *index[K, V]) tags(h uint64) uint64 {
	t := ix.tab.Load()
	if t == nil {
		return 0
	}
	return t.bucketOf(h).tags.Load()
}

// candidate returns the first entry of h's bucket whose tag is h's, or nil,
// without comparing keys. It is safe without the lock: lookahead only.
func (ix *index[K, V]) candidate(h uint64) *entry[K, V] {
	t := ix.tab.Load()
	if t == nil {
		return nil
	}
	b := t.bucketOf(h)
	if m := matchTags(b.tags.Load(), tagOf(h)); m != 0 {
		if i := bits.TrailingZeros64(m) >> 3; i < bucketSlots {
			return b.entries[i].Load()
		}
	}
	return nil
}

// put adds e, whose key must be absent. The caller holds the shard lock.
func (ix *index[K, V]) put(e *entry[K, V]) {
	t := ix.tab.Load()
	if t == nil {
		t = newTable[K, V](minBuckets)
		ix.tab.Store(t)
	} else if 2*ix.count >= 7*len(t.buckets) {
		t = ix.grow(t)
	}
	t.insert(e)
	ix.count++
}

// remove takes e out if it is in the table, and reports whether it was. The
// caller holds the shard lock.
func (ix *index[K, V]) remove(e *entry[K, V]) bool {
	b, i := ix.slotOf(e)
	if b == nil {
		return false
	}
	// Tag first: a reader that still sees it finds nil or the entry.
	b.tags.Store(b.tags.Load() &^ (0xff << (8 * i)))
	b.entries[i].Store(nil)
	ix.count--
	return true
}

// replace puts e where old is, in the same slot, so that a reader finds one
// or the other, and reports whether old was there. Both have the same key. The
// caller holds the shard lock.
func (ix *index[K, V]) replace(old, e *entry[K, V]) bool {
	b, i := ix.slotOf(old)
	if b == nil {
		return false
	}
	b.entries[i].Store(e) // the tag, the key's, stays
	return true
}

// slotOf returns the bucket and slot holding e, or nil. The caller holds the
// shard lock.
func (ix *index[K, V]) slotOf(e *entry[K, V]) (*bucket[K, V], int) {
	t := ix.tab.Load()
	if t == nil {
		return nil, 0
	}
	for b := t.bucketOf(e.hash); b != nil; b = b.overflow.Load() {
		for i := range bucketSlots {
			if b.entries[i].Load() == e {
				return b, i
			}
		}
	}
	return nil, 0
}

// grow publishes a table of twice the buckets holding the same entries, and
// returns it. The caller holds the shard lock.
func (ix *index[K, V]) grow(old *table[K, V]) *table[K, V] {
	t := newTable[K, V](2 * len(old.buckets))
	for i := range old.buckets {
		for b := &old.buckets[i]; b != nil; b = b.overflow.Load() {
			for j := range bucketSlots {
				if e := b.entries[j].Load(); e != nil {
					t.insert(e)
				}
			}
		}
	}
	ix.tab.Store(t)
	return t
}

func newTable[K comparable, V any](buckets int) *table[K, V] {
	return &table[K, V]{buckets: make([]bucket[K, V], buckets), mask: uint64(buckets - 1)}
}

// insert stores e in the first free slot of its bucket chain, adding an
// overflow bucket when the chain is full. The caller holds the shard lock, or
// owns t (not yet published).
func (t *table[K, V]) insert(e *entry[K, V]) {
	b := t.bucketOf(e.hash)
	for {
		for i := range bucketSlots {
			if b.entries[i].Load() == nil {
				// Entry first: a reader that matches the tag finds the entry.
				b.entries[i].Store(e)
				b.tags.Store(b.tags.Load() | tagOf(e.hash)<<(8*i))
				return
			}
		}
		next := b.overflow.Load()
		if next == nil {
			next = &bucket[K, V]{}
			next.entries[0].Store(e)
			next.tags.Store(tagOf(e.hash))
			b.overflow.Store(next)
			return
		}
		b = next
	}
}

// each calls f for every entry in the table. The caller holds the shard lock.
func (ix *index[K, V]) each(f func(*entry[K, V])) {
	t := ix.tab.Load()
	if t == nil {
		return
	}
	for i := range t.buckets {
		for b := &t.buckets[i]; b != nil; b = b.overflow.Load() {
			for j := range bucketSlots {
				if e := b.entries[j].Load(); e != nil {
					f(e)
				}
			}
		}
	}
}
