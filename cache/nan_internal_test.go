package cache

import (
	"context"
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

// TestNaNFillRecordsBounded: each Get of a key not equal to itself registered
// a fill record under a map key that no lookup, invalidation or sweep can
// find, so the records grew with every Get and the shard's lock-free
// invalidation shortcut (no records) was off for good (found by a review).
func TestNaNFillRecordsBounded(t *testing.T) {
	c, err := New[float64, int](Config[float64]{Capacity: 10})
	if err != nil {
		t.Fatal(err)
	}
	const n = 20_000
	for i := range n {
		if _, err := c.Get(context.Background(), math.NaN(), func(context.Context) (int, error) { return i, nil }); err != nil {
			t.Fatal(err)
		}
	}
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		records, flag := len(s.fills), s.records.Load()
		s.mu.Unlock()
		if records != 0 || flag != 0 {
			t.Fatalf("after %d Gets of NaN, shard %d holds %d fill records (flag %d), want none", n, i, records, flag)
		}
	}
	if st := c.Stats(); st.Loads != n || st.Len > 10 {
		t.Fatalf("stats %+v: want %d loads and at most 10 entries", st, n)
	}
}
