package memkv

import (
	"hash/maphash"
	"sync"
	"unsafe"

	"github.com/tierkit/tierkit/internal/mapshrink"
)

// index maps keys to their skiplist nodes, so that point reads and point
// validation cost a hash lookup instead of a skiplist search. It is striped:
// a reader takes the read lock of one of 256 stripes for the lookup only.
// Nodes enter it when first inserted and leave it when GC unlinks them, both
// under the shard mutex, so a writer holding the shard mutex sees the index
// and the skiplist agree.
type index struct {
	seed    maphash.Seed
	stripes [256]stripe
}

type stripe struct {
	mu   sync.RWMutex     // protects m and peak
	m    map[string]*node // keys point into node.key
	peak int              // the most keys m held since it was last rebuilt
	_    [24]byte         // keep stripes on separate cache lines
}

// minStripeRebuild is the fewest keys a stripe's map must have held before it
// is worth rebuilding smaller.
const minStripeRebuild = 64

func newIndex() *index {
	ix := &index{seed: maphash.MakeSeed()}
	for i := range ix.stripes {
		ix.stripes[i].m = make(map[string]*node)
	}
	return ix
}

func (ix *index) stripe(k []byte) *stripe {
	return &ix.stripes[maphash.Bytes(ix.seed, k)&255]
}

func (ix *index) get(k []byte) *node {
	st := ix.stripe(k)
	st.mu.RLock()
	n := st.m[string(k)]
	st.mu.RUnlock()
	return n
}

func (ix *index) put(n *node) {
	st := ix.stripe(n.key)
	st.mu.Lock()
	st.m[unsafe.String(unsafe.SliceData(n.key), len(n.key))] = n
	st.peak = max(st.peak, len(st.m))
	st.mu.Unlock()
}

// del removes n's key if it maps to n (not to a node that replaced it).
// A Go map keeps the memory of the most keys it held: once GC has collected
// a burst of keys, the stripe's map is rebuilt at a quarter of its peak.
func (ix *index) del(n *node) {
	st := ix.stripe(n.key)
	st.mu.Lock()
	if st.m[string(n.key)] == n {
		delete(st.m, string(n.key))
		if mapshrink.Due(len(st.m), st.peak, minStripeRebuild) {
			st.m = mapshrink.Rebuild(st.m)
			st.peak = len(st.m)
		}
	}
	st.mu.Unlock()
}
