package cache

import (
	"testing"
	"time"
)

// A refill (a Write event with Refill) of a key whose entry the policy has
// just evicted, but whose unlink from the index has not run yet, updated the
// entry and counted it in Refills, although the eviction, already counted,
// removes it right after: the key counted as evicted and then refilled, and
// Apply reported refilling a key the cache no longer held. (The replacement
// entry shares the evicted node, so unlink still removes it: the cache never
// held more than its capacity.) An evicted key is uncached, and a refill
// leaves an uncached key uncached. The test holds the policy lock to open
// that window, as TestInvalidationOfAnEvictedEntryCountsOnce does.
func TestRefillOfAnEvictedEntryIsNotCounted(t *testing.T) {
	for _, bound := range []time.Duration{0, time.Hour} {
		t.Run("word/bound="+bound.String(), func(t *testing.T) {
			testRefillOfAnEvictedEntry(t, bound, func(k int) int { return k + 1000 })
		})
		t.Run("string/bound="+bound.String(), func(t *testing.T) {
			testRefillOfAnEvictedEntry(t, bound, func(k int) string { return "refilled" })
		})
	}
}

func testRefillOfAnEvictedEntry[V comparable](t *testing.T, bound time.Duration, val func(int) V) {
	const capacity = 10
	c, err := New[int, V](Config[int]{Capacity: capacity, MaxStaleness: bound})
	if err != nil {
		t.Fatal(err)
	}
	var zero V
	for k := range capacity {
		c.Set(k, zero)
	}
	c.mu.Lock()
	c.Set(capacity, zero)
	c.drainLocked()
	victims := c.takeEvictedLocked(nil)
	c.mu.Unlock()
	if len(victims) != 1 {
		t.Fatalf("%d victims, want 1", len(victims))
	}
	key := victims[0].key
	c.Apply(Event[int, V]{Kind: Write, Key: key, Version: 1, Value: val(key), Refill: true})
	if v, ok := c.TryGet(key); ok {
		t.Errorf("evicted key %d served %v after its refill", key, v)
	}
	c.unlink(victims)

	st := c.Stats()
	if st.Refills != 0 {
		t.Errorf("Refills %d, want 0: the refilled entry was already evicted", st.Refills)
	}
	if st.Evictions != 1 || st.Len != capacity {
		t.Errorf("Evictions %d, Len %d; want 1, %d", st.Evictions, st.Len, capacity)
	}
	indexed := 0
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		indexed += s.ix.count
		s.mu.Unlock()
	}
	if indexed != st.Len {
		t.Errorf("the index holds %d entries, the policy %d", indexed, st.Len)
	}
	if _, ok := c.TryGet(key); ok {
		t.Errorf("key %d still cached", key)
	}
}
