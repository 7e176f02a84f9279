package batcher

import (
	"context"
	"testing"
)

// TestMeanFillPastTheFillSumWrap: the fill sum adds fillScale (2^20) for
// every full batch, so a uint64 holds 2^44 of them, which 10^6 batches a
// second reach in about 203 days; MeanFill, and the gateway's
// batch_mean_fill, then read about 0 for a batcher whose batches were all
// full. Here the counters are set to 2^44-1 full batches, and one more full
// batch runs.
func TestMeanFillPastTheFillSumWrap(t *testing.T) {
	b, err := New(Config[int]{MaxItems: 1},
		func(ctx context.Context, g int, reqs []int, out []Result[int]) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	const before = 1<<44 - 1
	b.c.batches.Store(before)
	b.c.fill.Store(before * fillScale)
	if got := b.Stats().MeanFill; got != 1 {
		t.Fatalf("MeanFill %v after %d full batches, want 1", got, uint64(before))
	}
	if _, err := b.Do(context.Background(), 0, 0); err != nil {
		t.Fatal(err)
	}
	s := b.Stats()
	if s.Batches != before+1 {
		t.Fatalf("Batches %d, want %d", s.Batches, uint64(before+1))
	}
	if s.MeanFill != 1 {
		t.Fatalf("MeanFill %v after %d full batches, want 1", s.MeanFill, s.Batches)
	}
}
