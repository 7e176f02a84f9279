package cache

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// panicClock is a Clock that panics while armed.
type panicClock struct{ armed atomic.Bool }

func (c *panicClock) Now() time.Time {
	if c.armed.Load() {
		panic("clock")
	}
	return time.Unix(0, 0)
}

// Config.Clock is the caller's code, as Owns is. Set read it under the key's
// shard lock, so a panicking Clock left the lock held and every later write
// to the shard blocked for good; a fill read it after registering and before
// it could end, so the fill stayed in flight for good and its record was
// never swept. A panic in Clock now leaves no lock held and no fill in
// flight.
func TestClockPanicLeavesNothingHeld(t *testing.T) {
	tests := []struct {
		name string
		op   func(c *Cache[int, int], keys []int)
	}{
		{name: "Set", op: func(c *Cache[int, int], keys []int) { c.Set(keys[0], 1) }},
		{name: "fill", op: func(c *Cache[int, int], keys []int) {
			_, _ = c.fill(context.Background(), keys[0], true, func(context.Context) (int, error) { return 1, nil })
		}},
		{name: "FillMany", op: func(c *Cache[int, int], keys []int) {
			_, _ = c.FillMany(context.Background(), keys, func(_ context.Context, ks []int) ([]int, error) {
				return make([]int, len(ks)), nil
			})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := &panicClock{}
			c, err := New[int, int](Config[int]{Capacity: 100, MaxStaleness: time.Second, Clock: clock})
			if err != nil {
				t.Fatal(err)
			}
			keys := []int{1, 2, 3}
			clock.armed.Store(true)
			func() {
				defer func() {
					if recover() == nil {
						t.Fatal("want the Clock panic to reach the caller")
					}
				}()
				tt.op(c, keys)
			}()
			clock.armed.Store(false)
			for _, k := range keys {
				s := &c.shards[c.hash(k)&(numShards-1)]
				if !s.mu.TryLock() {
					t.Fatalf("key %d: its shard lock is still held", k)
				}
				if f := s.fills[k]; f != nil && f.active != 0 {
					t.Errorf("key %d: %d fills still in flight", k, f.active)
				}
				s.mu.Unlock()
			}
		})
	}
}
