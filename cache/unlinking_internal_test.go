package cache

import (
	"sync"
	"testing"
)

// A store skips loading the node of the entry it updates while its shard's
// unlinking count is 0 (storeLocked). That is right only if no indexed entry
// has an evicted node then: every eviction counts itself in the victim's
// shard before it marks the node, and its unlink uncounts it after taking
// the entry out. Writers racing over a small cache check, at each store, that
// an entry whose node is dead is always seen with the count above 0; when
// they stop, every count is back to 0.
func TestUnlinkingCountsEveryPendingEviction(t *testing.T) {
	const (
		writers = 4
		keys    = 512
		ops     = 20_000
	)
	c, err := New[int, int](Config[int]{Capacity: 64})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var bad sync.Map
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range ops {
				k := (i*7 + w*131) % keys
				h := c.hash(k)
				s := &c.shards[h&(numShards-1)]
				s.mu.Lock()
				if e := s.ix.get(k, h); e != nil && e.p.dead.Load() && s.unlinking.Load() == 0 {
					bad.Store(k, true)
				}
				s.mu.Unlock()
				switch i % 4 {
				case 3:
					c.Delete(k)
				default:
					c.Set(k, i)
				}
			}
		}()
	}
	wg.Wait()
	bad.Range(func(k, _ any) bool {
		t.Errorf("key %v: indexed with an evicted node while its shard counted no pending unlink", k)
		return true
	})
	for i := range c.shards {
		if n := c.shards[i].unlinking.Load(); n != 0 {
			t.Errorf("shard %d: unlinking = %d after every writer returned, want 0", i, n)
		}
	}
	if st := c.Stats(); st.Evictions == 0 {
		t.Fatalf("no evictions: the test did not exercise the count")
	}
}
