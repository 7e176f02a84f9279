package cache

import (
	"math"
	"testing"
)

// TestNaNKeysStayBounded: a key that is not equal to itself (a float NaN,
// or a struct or interface holding one) is stored as a new entry by every
// Set, as a Go map does, and the policy evicts those entries to keep the
// capacity. Eviction must take them out of the index too: unlink looked the
// victim up by its key, never found it, and the index grew without bound.
func TestNaNKeysStayBounded(t *testing.T) {
	const capacity = 10
	c, err := New[float64, int](Config[float64]{Capacity: capacity})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 1000 {
		c.Set(math.NaN(), i)
	}
	entries := 0
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		entries += s.ix.count
		s.mu.Unlock()
	}
	if n := c.Len(); n > capacity || entries > capacity {
		t.Fatalf("after 1000 Sets of NaN: Len %d, %d entries in the index; want at most %d", n, entries, capacity)
	}
}
