package batcher

import (
	"context"
	"testing"
	"time"
)

// TestCloseSendsBatchSealedBeforeIt: an item accepted before Close, whose
// batch it filled (sealed) while no flush was in flight, but whose dispatch
// had not started when Close ran, was answered ErrOverloaded: Close forced
// another group's open batch past MaxInFlight, and the sealed batch, started
// after it without force, found the cap taken by Close's own flush. Close
// promises to flush what was accepted whatever the cap. The test takes Do's
// steps one by one (add, then launch) to run Close between them.
func TestCloseSendsBatchSealedBeforeIt(t *testing.T) {
	release, started := make(chan struct{}), make(chan struct{})
	b, err := New(Config[int]{MaxItems: 2, MaxInFlight: 1, Linger: time.Hour},
		func(_ context.Context, g int, _ []int, _ []Result[int]) error {
			if g == 1 {
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
	open := b.Start(ctx, 1, 10) // group 1: an open batch, for Close to force
	first := b.Start(ctx, 0, 0)
	_, bt, slot, own, err := b.add(ctx, 0, 1) // fills and seals group 0's batch
	if err != nil || !own {
		t.Fatalf("add: own %v, %v; want the batch sealed by this item", own, err)
	}
	if n := b.inflight.Load(); n != 0 {
		t.Fatalf("%d batches in flight at the seal, want 0", n)
	}

	closed := make(chan struct{})
	go func() { _ = b.Close(); close(closed) }()
	<-started // Close forced group 1's batch: it holds the only slot

	b.launch(bt, false) // Do's next step for the item that sealed its batch
	if _, err := b.wait(ctx, bt, slot); err != nil {
		t.Fatalf("item accepted before Close: %v; Close sends it whatever the cap", err)
	}
	if _, err := first.Wait(); err != nil {
		t.Fatalf("its batch mate: %v", err)
	}
	close(release)
	<-closed
	if _, err := open.Wait(); err != nil {
		t.Fatalf("group 1: %v", err)
	}
	if s := b.Stats(); s.Items != 3 || s.Rejected != 0 {
		t.Fatalf("after Close: %d items, %d rejected; want 3, 0", s.Items, s.Rejected)
	}
}

// The same promise when Close begins while the sealed batch is already being
// started: start had seen Close not begun and went on to claim a slot, which
// Close's forced flush of another group had just taken, and answered the
// accepted item ErrOverloaded.
func TestCloseDuringStartSendsSealedBatch(t *testing.T) {
	release, started := make(chan struct{}), make(chan struct{})
	b, err := New(Config[int]{MaxItems: 2, MaxInFlight: 1, Linger: time.Hour},
		func(_ context.Context, g int, _ []int, _ []Result[int]) error {
			if g == 1 {
				close(started)
				<-release
			}
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	open := b.Start(ctx, 1, 10) // group 1: an open batch, for Close to force
	first := b.Start(ctx, 0, 0)
	_, bt, slot, own, err := b.add(ctx, 0, 1) // fills and seals group 0's batch
	if err != nil || !own {
		t.Fatalf("add: own %v, %v; want the batch sealed by this item", own, err)
	}
	closed := make(chan struct{})
	testHookTakeSlot = func() {
		testHookTakeSlot = nil
		go func() { _ = b.Close(); close(closed) }()
		<-started // Close forced group 1's batch: it holds the only slot
	}
	defer func() { testHookTakeSlot = nil }()
	b.launch(bt, false)
	if _, err := b.wait(ctx, bt, slot); err != nil {
		t.Errorf("item accepted before Close: %v; Close sends it whatever the cap", err)
	}
	if _, err := first.Wait(); err != nil {
		t.Errorf("its batch mate: %v", err)
	}
	close(release)
	<-closed
	if _, err := open.Wait(); err != nil {
		t.Errorf("group 1: %v", err)
	}
	if s := b.Stats(); s.Items != 3 || s.Rejected != 0 {
		t.Errorf("after Close: %d items, %d rejected; want 3, 0", s.Items, s.Rejected)
	}
}
