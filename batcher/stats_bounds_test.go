package batcher_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tierkit/tierkit/batcher"
)

// TestStatsSnapshotBounds: FlushErrors counts some of the flush calls and
// MeanFill is documented between 0 and 1, so no snapshot taken while batches
// finish may show FlushErrors above Batches or MeanFill above 1. Every batch
// here is full (MaxItems 1) and fails, so a snapshot that reads Batches before
// a finishing batch adds to it, and its error or fill after, breaks both.
func TestStatsSnapshotBounds(t *testing.T) {
	flush := func(ctx context.Context, g int, reqs []item, out []batcher.Result[int]) error {
		return errBatch
	}
	b, err := batcher.New(batcher.Config[item]{MaxItems: 1}, flush)
	if err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := 0; i < 20000 && !stop.Load(); i++ {
				_, _ = b.Do(context.Background(), w, item{ID: i, Group: w})
			}
		})
	}
	bad := 0
	for i := 0; i < 20000 && bad == 0; i++ {
		s := b.Stats()
		if s.FlushErrors > s.Batches || s.MeanFill > 1 {
			bad++
			t.Errorf("snapshot %d: FlushErrors %d, Batches %d, MeanFill %v", i, s.FlushErrors, s.Batches, s.MeanFill)
		}
	}
	stop.Store(true)
	wg.Wait()
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if s := b.Stats(); s.FlushErrors != s.Batches || s.MeanFill != 1 {
		t.Fatalf("at rest: FlushErrors %d, Batches %d, MeanFill %v", s.FlushErrors, s.Batches, s.MeanFill)
	}
}
