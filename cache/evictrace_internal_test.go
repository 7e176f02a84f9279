package cache

import "testing"

// An entry the policy evicted is counted in Evictions when the policy lock
// is released, and unlinked from the index just after, under its shard
// lock. A Delete or a CDC invalidation of the key in between found the
// entry still indexed, removed it and counted it in Invalidations too: one
// entry counted twice, and Delete reported removing what eviction had
// removed. The test holds the policy lock to open that window.
func TestInvalidationOfAnEvictedEntryCountsOnce(t *testing.T) {
	const capacity = 10
	for _, how := range []string{"Delete", "Apply"} {
		t.Run(how, func(t *testing.T) {
			c, err := New[int, int](Config[int]{Capacity: capacity})
			if err != nil {
				t.Fatal(err)
			}
			for k := range capacity {
				c.Set(k, k)
			}
			// The policy is busy: the next Set defers its node, and the
			// test, as the lock's holder, admits it and takes the victim.
			c.mu.Lock()
			c.Set(capacity, capacity)
			c.drainLocked()
			victims := c.takeEvictedLocked(nil)
			c.mu.Unlock()
			if len(victims) != 1 {
				t.Fatalf("%d victims, want 1", len(victims))
			}
			key := victims[0].key
			var removed bool
			if how == "Delete" {
				removed = c.Delete(key)
			} else {
				c.Apply(Event[int, int]{Kind: Delete, Key: key, Version: 1})
			}
			c.unlink(victims)

			st := c.Stats()
			if gone := uint64(capacity + 1 - c.Len()); st.Evictions+st.Invalidations != gone {
				t.Errorf("Evictions %d + Invalidations %d != %d entries removed", st.Evictions, st.Invalidations, gone)
			}
			if removed {
				t.Errorf("Delete(%d) reported removing an entry already evicted", key)
			}
			if _, ok := c.TryGet(key); ok {
				t.Errorf("key %d still cached", key)
			}
		})
	}
}
