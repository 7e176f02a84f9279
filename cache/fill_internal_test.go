package cache

import (
	"context"
	"testing"
)

// A loader that panics (coalesce turns the panic into an error for Get's
// callers) must not leave its fill registered: the record stays active
// forever, is never swept, and the shard's invalidation fast path is off.
func TestPanickingLoadEndsItsFill(t *testing.T) {
	c, err := New[int, int](Config[int]{Capacity: 100})
	if err != nil {
		t.Fatal(err)
	}
	const n = 10_000
	for k := range n {
		_, err := c.Get(context.Background(), k, func(context.Context) (int, error) { panic("boom") })
		if err == nil {
			t.Fatal("want the panic as an error")
		}
	}
	records, active := 0, 0
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		records += len(s.fills)
		for _, f := range s.fills {
			active += f.active
		}
		s.mu.Unlock()
	}
	if active != 0 || records > numShards*sweepFills {
		t.Fatalf("after %d panicked loads: %d fill records held, %d still active (want 0 active, at most %d records)",
			n, records, active, numShards*sweepFills)
	}
}
