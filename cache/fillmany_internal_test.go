package cache

import (
	"context"
	"testing"
)

// FillMany registers the fills of its keys one by one. When a key cannot be
// hashed (K an interface holding a slice: a programmer error, which panics
// as a map would), the fills registered before it stayed in flight for
// good: their records were never swept, and the shard's invalidations lost
// their fast path, in a process that recovers the panic (an HTTP server
// does) and goes on.
func TestFillManyPanicInRegistrationEndsItsFills(t *testing.T) {
	c, err := New[any, int](Config[any]{Capacity: 10})
	if err != nil {
		t.Fatal(err)
	}
	loads := 0
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("want a panic for an unhashable key")
			}
		}()
		_, _ = c.FillMany(context.Background(), []any{1, "a", []int{2}}, func(_ context.Context, keys []any) ([]int, error) {
			loads++
			return make([]int, len(keys)), nil
		})
	}()
	if loads != 0 {
		t.Errorf("the loader ran %d times, want 0", loads)
	}
	active := 0
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		for _, f := range s.fills {
			active += f.active
		}
		s.mu.Unlock()
	}
	if active != 0 {
		t.Errorf("%d fills still in flight after FillMany panicked", active)
	}
	if st := c.Stats(); st.Loads != 0 || st.LoadErrors != 0 || st.Len != 0 {
		t.Errorf("Loads %d, LoadErrors %d, Len %d; want 0, 0, 0: nothing was loaded", st.Loads, st.LoadErrors, st.Len)
	}
}
