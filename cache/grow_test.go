package cache_test

import (
	"testing"

	"github.com/tierkit/tierkit/cache"
)

// TestGrownCacheResistsScans: a cache made small and grown with SetConfig is
// still W-TinyLFU. setCapacity scaled the window by its share of the old
// capacity, and a small cache's window is at its floor of one entry (all of
// a cache of one): grown to 1000, the window was the whole cache, the policy
// plain LRU, and a scan of 2000 keys evicted every hot key (0 of 500 kept,
// against 490 for a cache made with capacity 1000).
func TestGrownCacheResistsScans(t *testing.T) {
	for _, start := range []int{1000, 1, 10} {
		c := newCache[int, int](t, cache.Config[int]{Capacity: start})
		if err := c.SetConfig(cache.Config[int]{Capacity: 1000}); err != nil {
			t.Fatal(err)
		}
		for range 30 {
			for k := range 500 {
				if _, ok := c.TryGet(k); !ok {
					c.Set(k, k)
				}
			}
		}
		for k := 10_000; k < 12_000; k++ {
			c.Set(k, k)
		}
		kept := 0
		for k := range 500 {
			if _, ok := c.TryGet(k); ok {
				kept++
			}
		}
		if kept < 250 {
			t.Errorf("made with capacity %d, grown to 1000: %d of 500 hot keys kept after a scan; want most", start, kept)
		}
	}
}
