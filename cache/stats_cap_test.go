package cache_test

import (
	"sync"
	"testing"

	"github.com/tierkit/tierkit/cache"
)

// A Stats snapshot taken while SetConfig lowers the capacity never shows more
// entries than its capacity: Len never exceeds the capacity.
func TestStatsLenWithinCapacityUnderSetConfig(t *testing.T) {
	c := newCache[int, int](t, cache.Config[int]{Capacity: 1000})
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			capacity := 1000
			if i%2 == 1 {
				capacity = 10
			}
			if err := c.SetConfig(cache.Config[int]{Capacity: capacity}); err != nil {
				t.Error(err)
				return
			}
			for k := range 1000 {
				c.Set(k, k)
			}
		}
	})
	bad := 0
	for range 100_000 {
		if s := c.Stats(); s.Len > s.Capacity {
			bad++
			if bad == 1 {
				t.Errorf("Stats: Len %d > Capacity %d", s.Len, s.Capacity)
			}
		}
	}
	close(stop)
	wg.Wait()
}
