package batcher

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A batch closed while MaxInFlight batches are in the backend is answered
// ErrOverloaded without taking a slot. The in-flight gauge (Stats'
// InFlightBatches, which Do's admission check also reads) must never count
// it, not even for a moment: start used to add it and then take it back, so
// a concurrent reader saw the gauge above MaxInFlight, and a concurrent
// admission or dispatch could be refused for a slot that was free.
func TestRejectedStartNeverRaisesTheGauge(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("needs two Ps for the reader to run alongside the starts")
	}
	release := make(chan struct{})
	b, err := New(Config[int]{MaxItems: 1, MaxInFlight: 1},
		func(ctx context.Context, g int, reqs []int, out []Result[int]) error {
			if g == 0 {
				<-release
			}
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	held := make(chan error, 1)
	go func() { _, err := b.Do(context.Background(), 0, 0); held <- err }()
	// group 0's flush takes the only slot
	for deadline := time.Now().Add(10 * time.Second); b.inflight.Load() == 0; runtime.Gosched() {
		if time.Now().After(deadline) {
			close(release)
			b.Close()
			t.Fatal("group 0's batch never went in flight")
		}
	}

	var stop atomic.Bool
	var peak atomic.Int64
	var wg sync.WaitGroup
	wg.Go(func() {
		for !stop.Load() {
			if n := b.inflight.Load(); n > peak.Load() {
				peak.Store(n)
			}
		}
	})
	cfg := b.cfg.Load()
	for i := range 20_000 {
		// enqueue, not Do: Do's admission check would refuse the item first.
		bt, slot, own, err := b.enqueue(cfg, 1, i, 0)
		if err != nil || !own {
			t.Fatalf("enqueue: own %v, err %v", own, err)
		}
		if b.start(bt, false) {
			t.Fatal("a batch started beyond MaxInFlight")
		}
		if _, err := b.wait(context.Background(), bt, slot); !errors.Is(err, ErrOverloaded) {
			t.Fatalf("rejected item: %v, want ErrOverloaded", err)
		}
		if peak.Load() > 1 {
			break
		}
	}
	stop.Store(true)
	wg.Wait()
	close(release)
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	b.Close()
	if p := peak.Load(); p > int64(cfg.MaxInFlight) {
		t.Errorf("in-flight gauge reached %d, MaxInFlight is %d", p, cfg.MaxInFlight)
	}
	if s := b.Stats(); s.InFlightBatches != 0 || s.InFlightItems != 0 || s.PendingItems != 0 {
		t.Errorf("after Close: %d batches, %d items in flight, %d pending", s.InFlightBatches, s.InFlightItems, s.PendingItems)
	}
}
