package batcher

import (
	"context"
	"testing"
	"time"
)

// sealedRace is a batcher of one in-flight slot with group 1's batch open
// (for Close to force: its flush holds the slot until release closes) and
// group 0's batch sealed by an item whose dispatch has not begun: Do's first
// step (add) taken, its launch not yet.
type sealedRace struct {
	b               *Batcher[int, int, int]
	release         chan struct{}
	started, closed chan struct{}
	open, first     Pending[int, int, int]
	bt              *batch[int, int, int]
	slot            int
}

func newSealedRace(t *testing.T) *sealedRace {
	r := &sealedRace{release: make(chan struct{}), started: make(chan struct{}), closed: make(chan struct{})}
	var err error
	r.b, err = New(Config[int]{MaxItems: 2, MaxInFlight: 1, Linger: time.Hour},
		func(_ context.Context, g int, _ []int, _ []Result[int]) error {
			if g == 1 {
				close(r.started)
				<-r.release
			}
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	r.open = r.b.Start(ctx, 1, 10)
	r.first = r.b.Start(ctx, 0, 0)
	var own bool
	_, r.bt, r.slot, own, err = r.b.add(ctx, 0, 1) // fills and seals group 0's batch
	if err != nil || !own {
		t.Fatalf("add: own %v, %v; want the batch sealed by this item", own, err)
	}
	return r
}

// closeForcing runs Close and returns once Close has forced group 1's batch,
// which then holds the only slot.
func (r *sealedRace) closeForcing() {
	go func() { _ = r.b.Close(); close(r.closed) }()
	<-r.started
}

// launchAndCheck takes Do's next step for the item that sealed its batch
// and checks that every item accepted before Close was sent.
func (r *sealedRace) launchAndCheck(t *testing.T) {
	t.Helper()
	r.b.launch(r.bt, false)
	if _, err := r.b.wait(context.Background(), r.bt, r.slot); err != nil {
		t.Errorf("item accepted before Close: %v; Close sends it whatever the cap", err)
	}
	if _, err := r.first.Wait(); err != nil {
		t.Errorf("its batch mate: %v", err)
	}
	close(r.release)
	<-r.closed
	if _, err := r.open.Wait(); err != nil {
		t.Errorf("group 1: %v", err)
	}
	if s := r.b.Stats(); s.Items != 3 || s.Rejected != 0 {
		t.Errorf("after Close: %d items, %d rejected; want 3, 0", s.Items, s.Rejected)
	}
}

// TestCloseSendsBatchSealedBeforeIt: an item accepted before Close, whose
// batch it filled (sealed) while no flush was in flight, but whose dispatch
// had not started when Close ran, was answered ErrOverloaded: Close forced
// another group's open batch past MaxInFlight, and the sealed batch, started
// after it without force, found the cap taken by Close's own flush. Close
// promises to flush what was accepted whatever the cap. The test takes Do's
// steps one by one (add, then launch) to run Close between them.
func TestCloseSendsBatchSealedBeforeIt(t *testing.T) {
	r := newSealedRace(t)
	if n := r.b.inflight.Load(); n != 0 {
		t.Fatalf("%d batches in flight at the seal, want 0", n)
	}
	r.closeForcing()
	r.launchAndCheck(t)
}

// The same promise when Close begins while the sealed batch is already being
// started: start had seen Close not begun and went on to claim a slot, which
// Close's forced flush of another group had just taken, and answered the
// accepted item ErrOverloaded.
func TestCloseDuringStartSendsSealedBatch(t *testing.T) {
	r := newSealedRace(t)
	testHookTakeSlot = func() {
		testHookTakeSlot = nil
		r.closeForcing()
	}
	defer func() { testHookTakeSlot = nil }()
	r.launchAndCheck(t)
}
