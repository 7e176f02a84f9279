package cache

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/tierkit/tierkit/coalesce"
)

// Config.Owns is the caller's code. A fill that ended asked it under the
// shard lock, so a panicking Owns left the lock held (every later write to
// the shard blocked for good) and, in FillMany, the later keys' fills in
// flight. The fill now asks it before the lock and ends its fill before the
// panic goes on.
func TestOwnsPanicAtFillEndLeavesNothingHeld(t *testing.T) {
	for _, bulk := range []bool{false, true} {
		name := map[bool]string{false: "Get", true: "FillMany"}[bulk]
		t.Run(name, func(t *testing.T) {
			var armed atomic.Bool
			c, err := New[int, int](Config[int]{Capacity: 100, Owns: func(int) bool {
				if armed.Load() {
					panic("owns")
				}
				return true
			}})
			if err != nil {
				t.Fatal(err)
			}
			keys := []int{1, 2, 3}
			if bulk {
				func() {
					defer func() {
						if recover() == nil {
							t.Fatal("want the Owns panic to reach FillMany's caller")
						}
					}()
					_, _ = c.FillMany(context.Background(), keys, func(_ context.Context, ks []int) ([]int, error) {
						armed.Store(true)
						return make([]int, len(ks)), nil
					})
				}()
			} else {
				// Get's load runs under coalesce, which hands a panic to
				// every waiter as a *coalesce.PanicError.
				_, err := c.Get(context.Background(), keys[0], func(context.Context) (int, error) {
					armed.Store(true)
					return 7, nil
				})
				var pe *coalesce.PanicError
				if !errors.As(err, &pe) {
					t.Fatalf("Get error = %v, want a *coalesce.PanicError", err)
				}
			}
			active := 0
			for i := range c.shards {
				s := &c.shards[i]
				if !s.mu.TryLock() {
					t.Fatalf("shard %d still locked after the panic", i)
				}
				for _, f := range s.fills {
					active += f.active
				}
				s.mu.Unlock()
			}
			if active != 0 {
				t.Errorf("%d fills still in flight after Owns panicked", active)
			}
			armed.Store(false)
			c.Set(keys[0], 9) // would block on a held lock
			if v, ok := c.TryGet(keys[0]); !ok || v != 9 {
				t.Errorf("TryGet after Set = %d, %v; want 9, true", v, ok)
			}
		})
	}
}
