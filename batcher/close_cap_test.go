package batcher_test

import (
	"context"
	"testing"
	"time"

	"github.com/tierkit/tierkit/batcher"
)

// Close flushes every open batch at once, ignoring MaxInFlight: with the cap
// reached, a batch still open is sent rather than answered ErrOverloaded, and
// the backend then holds more than MaxInFlight x MaxItems items. The package
// doc states that bound (and the ErrOverloaded answer) without this exception,
// which Config.MaxInFlight and Close document.
func TestCloseFlushesPastTheCap(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{})
	b, err := batcher.New(batcher.Config[int]{MaxItems: 2, MaxInFlight: 1, Linger: time.Hour},
		func(_ context.Context, g int, reqs []int, _ []batcher.Result[int]) error {
			if g == 0 {
				close(started)
				<-release
			}
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		select {
		case <-release:
		default:
			close(release)
		}
	}()
	ctx := context.Background()
	open := b.Start(ctx, 1, 10) // group 1: one item in an open batch
	first, second := b.Start(ctx, 0, 0), b.Start(ctx, 0, 1)
	<-started // group 0's full batch holds the only slot
	if s := b.Stats(); s.InFlightBatches != 1 || s.PendingItems != 1 {
		t.Fatalf("before Close: %d batches in flight, %d items pending; want 1 and 1", s.InFlightBatches, s.PendingItems)
	}

	closed := make(chan struct{})
	go func() { _ = b.Close(); close(closed) }()
	if _, err := open.Wait(); err != nil {
		t.Fatalf("the open batch at Close: %v; Close sends it whatever the cap", err)
	}
	// Group 1's flush returned while group 0's still holds its slot: its item
	// and group 0's two were in the backend at once, 3 > MaxInFlight x MaxItems.
	if s := b.Stats(); s.Batches != 1 {
		t.Fatalf("%d batches returned while group 0's is held; want 1 (group 1's)", s.Batches)
	}
	close(release)
	<-closed
	for _, p := range []batcher.Pending[int, int, int]{first, second} {
		if _, err := p.Wait(); err != nil {
			t.Fatalf("group 0: %v", err)
		}
	}
	if s := b.Stats(); s.Items != 3 || s.Batches != 2 || s.Rejected != 0 {
		t.Fatalf("after Close: %d items in %d batches, %d rejected; want 3 in 2, 0", s.Items, s.Batches, s.Rejected)
	}
}
