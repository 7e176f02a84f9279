package memkv

import (
	"bytes"
	"sync/atomic"
)

// maxLevel bounds the skiplist height; 2^20 keys per shard keep searches at
// about log4(n) levels with p = 1/4.
const maxLevel = 20

// version is one committed value of a key. Versions of a key form a chain from
// newest to oldest; the chain is only ever prepended (commit) or cut (GC).
type version struct {
	ver   uint64
	val   []byte
	del   bool
	older atomic.Pointer[version]
	// newer is the next newer version of the key (nil for the head),
	// written under the shard's mutex and read only under it, by the sweep.
	newer *version
}

// node is one key of a shard's skiplist. key is immutable; head and next are
// atomics so that readers never lock.
type node struct {
	key  []byte
	head atomic.Pointer[version]
	next []atomic.Pointer[node]
	// tail is the oldest version still chained (shard mutex): the sweep
	// starts there and walks toward newer versions, so it costs what it
	// frees, not the versions inside the history window.
	tail *version
}

// push makes v the newest version of n. The caller holds the shard's mutex
// and publishes nothing else about v first; it reports whether n had no
// version before.
func (n *node) push(v *version) (first bool) {
	old := n.head.Load()
	if old == nil {
		n.tail = v
	} else {
		v.older.Store(old)
		old.newer = v
	}
	n.head.Store(v)
	return old == nil
}

// list is an ordered skiplist with lock-free readers and one writer at a time
// (the owning shard's mutex serializes insert and unlink).
//
// Why it is safe for readers: a node is fully built (key, head, next) before
// the single atomic store that links it at level 0, and an unlinked node keeps
// its next pointers, so a reader standing on it walks on into the live list.
// A reader may miss a node inserted or see a node unlinked while it walks; both
// only hold versions the reader cannot see (newer than its read version, or
// older than the GC horizon, which the reader re-checks after reading).
type list struct {
	head  node // sentinel; head.next has maxLevel slots
	level atomic.Int32
	rnd   uint64 // protected by the shard mutex
	n     int    // protected by the shard mutex: number of nodes
}

func newList(seed uint64) *list {
	l := &list{rnd: seed | 1}
	l.head.next = make([]atomic.Pointer[node], maxLevel)
	l.level.Store(1)
	return l
}

// randomLevel draws a height with P(h > k) = 4^-k. Writer only.
func (l *list) randomLevel() int {
	l.rnd ^= l.rnd << 13
	l.rnd ^= l.rnd >> 7
	l.rnd ^= l.rnd << 17
	h, r := 1, l.rnd
	for h < maxLevel && r&3 == 0 {
		h++
		r >>= 2
	}
	return h
}

// seekGE returns the first node with key >= k, or nil.
func (l *list) seekGE(k []byte) *node {
	x := &l.head
	var bound *node // a node already known to be >= k: no need to compare again
	for i := int(l.level.Load()) - 1; i >= 0; i-- {
		for {
			nx := x.next[i].Load()
			if nx == nil || nx == bound {
				break
			}
			if bytes.Compare(nx.key, k) >= 0 {
				bound = nx
				break
			}
			x = nx
		}
	}
	return x.next[0].Load()
}

// seekLT returns the last node with key < k (k nil means +infinity), or nil.
func (l *list) seekLT(k []byte) *node {
	x := &l.head
	for i := int(l.level.Load()) - 1; i >= 0; i-- {
		for {
			nx := x.next[i].Load()
			if nx == nil || (k != nil && bytes.Compare(nx.key, k) >= 0) {
				break
			}
			x = nx
		}
	}
	if x == &l.head {
		return nil
	}
	return x
}

// getOrInsert returns the node for k, inserting an empty one (no versions) if
// absent. The key is copied (never nil). Writer only.
func (l *list) getOrInsert(k []byte) *node {
	var prev [maxLevel]*node
	x := &l.head
	lvl := int(l.level.Load())
	for i := lvl - 1; i >= 0; i-- {
		for {
			nx := x.next[i].Load()
			if nx == nil || bytes.Compare(nx.key, k) >= 0 {
				break
			}
			x = nx
		}
		prev[i] = x
	}
	if nx := x.next[0].Load(); nx != nil && bytes.Equal(nx.key, k) {
		return nx
	}
	h := l.randomLevel()
	if h > lvl {
		for i := lvl; i < h; i++ {
			prev[i] = &l.head
		}
		l.level.Store(int32(h))
	}
	n := newNode(h)
	// An exact-capacity copy: readers and the feed hand n.key out, and an
	// append to it (the key after it, say) must copy rather than write into
	// spare capacity that every other holder of the key shares.
	n.key = append(make([]byte, 0, len(k)), k...)
	for i := range h {
		n.next[i].Store(prev[i].next[i].Load())
	}
	// Link bottom-up: once level 0 is linked the node is reachable in order.
	for i := range h {
		prev[i].next[i].Store(n)
	}
	l.n++
	return n
}

// remove unlinks n and reports whether it did: false if n is no longer in the
// list (unlinked before, its key possibly held by a newer node). Writer only.
func (l *list) remove(n *node) bool {
	var prev [maxLevel]*node
	x := &l.head
	for i := int(l.level.Load()) - 1; i >= 0; i-- {
		for {
			nx := x.next[i].Load()
			if nx == nil || bytes.Compare(nx.key, n.key) >= 0 {
				break
			}
			x = nx
		}
		prev[i] = x
	}
	if x.next[0].Load() != n {
		// n was unlinked already, and its key may have a new node since:
		// that one is not n's to remove.
		return false
	}
	// Unlink top-down so that the node stays reachable at level 0 until last.
	for i := len(n.next) - 1; i >= 0; i-- {
		if prev[i].next[i].Load() == n {
			prev[i].next[i].Store(n.next[i].Load())
		}
	}
	l.n--
	return true
}

// visible returns the value of n at read version rv.
func (n *node) visible(rv uint64) (val []byte, ok bool) {
	for v := n.head.Load(); v != nil; v = v.older.Load() {
		if v.ver <= rv {
			if v.del {
				return nil, false
			}
			return v.val, true
		}
	}
	return nil, false
}

// Nodes of small heights (15 in 16 nodes have height 1 or 2) carry their
// next pointers in the same allocation, saving an allocation and a cache
// miss per step of a search.
type (
	node1 struct {
		n node
		a [1]atomic.Pointer[node]
	}
	node2 struct {
		n node
		a [2]atomic.Pointer[node]
	}
	node3 struct {
		n node
		a [3]atomic.Pointer[node]
	}
)

func newNode(h int) *node {
	switch h {
	case 1:
		x := &node1{}
		x.n.next = x.a[:]
		return &x.n
	case 2:
		x := &node2{}
		x.n.next = x.a[:]
		return &x.n
	case 3:
		x := &node3{}
		x.n.next = x.a[:]
		return &x.n
	}
	return &node{next: make([]atomic.Pointer[node], h)}
}
