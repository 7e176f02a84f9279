package cache_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tierkit/tierkit/cache"
)

// wallClock is a settable clock whose zero value reads the zero time, as a
// fake clock a host sets only after it made its cache may.
type wallClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *wallClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *wallClock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// TestBoundHoldsFarFromNew: the staleness bound holds on a clock far past
// its reading at New. More than 292 years past it (a clock that read the
// zero time at New), the offsets saturated, so a value Set then stayed
// fresh for good; more than 146 years past it, now minus the time of an
// unvouched value overflowed, so a refill was served with no checkpoint.
func TestBoundHoldsFarFromNew(t *testing.T) {
	t.Run("saturated", func(t *testing.T) {
		clock := &wallClock{} // the zero time at New
		c, err := cache.New[string, int](cache.Config[string]{Capacity: 10, MaxStaleness: time.Second, Clock: clock})
		if err != nil {
			t.Fatal(err)
		}
		at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
		clock.Set(at)
		c.Set("a", 1)
		clock.Set(at.Add(time.Hour))
		if v, ok := c.TryGet("a"); ok {
			t.Errorf("TryGet = %d, a value Set an hour ago, under a bound of 1s", v)
		}
	})
	t.Run("unvouched", func(t *testing.T) {
		clock := &wallClock{}
		clock.Set(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC))
		c, err := cache.New[string, int](cache.Config[string]{Capacity: 10, MaxStaleness: time.Second, Clock: clock})
		if err != nil {
			t.Fatal(err)
		}
		c.Set("a", 1)
		clock.Set(time.Date(2150, 1, 1, 0, 0, 0, 0, time.UTC))
		c.Apply(cache.Event[string, int]{Kind: cache.Write, Key: "a", Version: 1, Value: 2, Refill: true})
		if v, ok := c.TryGet("a"); ok {
			t.Errorf("TryGet = %d, a refilled value with no checkpoint applied", v)
		}
	})
	t.Run("joined", func(t *testing.T) {
		// A load that started while no bound was set vouches for nothing:
		// a read that joins it once a bound is set loads again.
		synctest.Test(t, func(t *testing.T) {
			clock := &wallClock{}
			clock.Set(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC))
			c, err := cache.New[string, int](cache.Config[string]{Capacity: 10, Clock: clock})
			if err != nil {
				t.Fatal(err)
			}
			release, first := make(chan struct{}), make(chan error, 1)
			go func() {
				_, err := c.Get(context.Background(), "k", func(context.Context) (int, error) {
					<-release
					return 1, nil
				})
				first <- err
			}()
			synctest.Wait()
			if err := c.SetConfig(cache.Config[string]{Capacity: 10, MaxStaleness: time.Second}); err != nil {
				t.Fatal(err)
			}
			clock.Set(time.Date(2150, 1, 1, 0, 0, 0, 0, time.UTC))
			second := make(chan int, 1)
			go func() {
				v, _ := c.Get(context.Background(), "k", func(context.Context) (int, error) { return 2, nil })
				second <- v
			}()
			synctest.Wait()
			close(release)
			if err := <-first; err != nil {
				t.Fatal(err)
			}
			if v := <-second; v != 2 {
				t.Errorf("Get = %d, the value of a load no bound vouched for", v)
			}
		})
	})
	t.Run("age", func(t *testing.T) {
		clock := &wallClock{}
		clock.Set(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC))
		c, err := cache.New[string, int](cache.Config[string]{Capacity: 10, MaxStaleness: time.Second, Clock: clock})
		if err != nil {
			t.Fatal(err)
		}
		c.Apply(cache.Event[string, int]{Kind: cache.Checkpoint, Version: 1, Cut: time.Date(1857, 1, 1, 0, 0, 0, 0, time.UTC)})
		clock.Set(time.Date(2152, 1, 1, 0, 0, 0, 0, time.UTC))
		if age := c.CheckpointAge(); age <= 0 {
			t.Errorf("CheckpointAge = %v, want positive", age)
		}
	})
}
