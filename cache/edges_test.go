package cache_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tierkit/tierkit/cache"
	"github.com/tierkit/tierkit/coalesce"
)

// TestBypassLoadPanicIsAnError: a loader's panic reaches the caller as a
// *coalesce.PanicError on the stale-bypass path too (a read that loads for
// itself because the shared load is slower than the bound); it escaped Get.
func TestBypassLoadPanicIsAnError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clock := &fakeClock{}
		c, err := cache.New[string, int](cache.Config[string]{Capacity: 10, MaxStaleness: time.Second, Clock: clock})
		if err != nil {
			t.Fatal(err)
		}
		release, first, second := make(chan struct{}), make(chan error, 1), make(chan error, 1)
		go func() {
			_, err := c.Get(context.Background(), "k", func(context.Context) (int, error) {
				<-release
				return 1, nil
			})
			first <- err
		}()
		synctest.Wait()                // the shared load is blocked
		clock.Advance(2 * time.Second) // and now slower than the bound
		go func() {
			defer func() {
				if r := recover(); r != nil {
					second <- fmt.Errorf("Get panicked instead of returning an error: %v", r)
				}
			}()
			_, err := c.Get(context.Background(), "k", func(context.Context) (int, error) { panic("boom") })
			second <- err
		}()
		synctest.Wait() // the second Get waits for the shared load
		close(release)
		if err := <-first; err != nil {
			t.Fatalf("the shared load: %v", err)
		}
		var pe *coalesce.PanicError
		if err := <-second; !errors.As(err, &pe) || pe.Value != "boom" {
			t.Fatalf("bypass Get = %v, want a *coalesce.PanicError of boom", err)
		}
		if st := c.Stats(); st.StaleBypass != 1 || st.LoadErrors != 1 {
			t.Errorf("StaleBypass %d, LoadErrors %d; want 1 and 1", st.StaleBypass, st.LoadErrors)
		}
	})
}

// TestCanceledGetIsNotCoalesced: a Get whose context ended before it joined
// a flight shared nothing.
func TestCanceledGetIsNotCoalesced(t *testing.T) {
	c, err := cache.New[string, int](cache.Config[string]{Capacity: 10})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = c.Get(ctx, "k", func(context.Context) (int, error) { return 1, nil })
	if err == nil {
		t.Fatal("want ctx.Err()")
	}
	if s := c.Stats(); s.Coalesced != 0 {
		t.Fatalf("Coalesced = %d, Loads = %d after one cancelled Get; want Coalesced 0", s.Coalesced, s.Loads)
	}
}

// A refilled value is vouched for by checkpoints only (freshAt 0). With the
// newest checkpoint older than the bound, a refilled word value must never be
// served; the value Set just before it (vouched at Set time) may be.
func TestRefillWordNotTornFresh(t *testing.T) {
	clock := &fakeClock{}
	c, err := cache.New[int, uint64](cache.Config[int]{Capacity: 16, MaxStaleness: time.Second, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Hour) // the implicit checkpoint at New is now far too old
	var stop atomic.Bool
	var bad atomic.Int64
	var wg sync.WaitGroup
	wg.Go(func() {
		for !stop.Load() {
			if v, ok := c.TryGet(1); ok && v == 2 {
				bad.Add(1)
			}
		}
	})
	// Bounded: before the fix a torn read showed within 100,000 rounds.
	deadline := time.Now().Add(3 * time.Second)
	i := 0
	for ; i < 300_000 && time.Now().Before(deadline) && bad.Load() == 0; i++ {
		c.Set(1, 1) // fresh as of now
		c.Apply(cache.Event[int, uint64]{Kind: cache.Write, Key: 1, Version: uint64(i + 1), Value: 2, Refill: true})
	}
	stop.Store(true)
	wg.Wait()
	if n := bad.Load(); n > 0 {
		t.Fatalf("refilled value served %d times though only a checkpoint an hour old vouches for it (%d rounds)", n, i)
	}
	t.Logf("%d rounds, no torn read", i)
}
