package batcher_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tierkit/tierkit/batcher"
)

// TestNegativeSizeCountsAsZero: a Size func that returns a negative size
// (a length computation gone wrong) must not lower the batch's byte count
// and so make room for more than MaxBytes: an item larger than MaxBytes
// still goes in a batch of its own, at once, and the batch it found open is
// flushed before it.
func TestNegativeSizeCountsAsZero(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var got [][]int
		b, err := batcher.New(batcher.Config[int]{
			MaxItems: 10, MaxBytes: 100, Linger: time.Second,
			Size: func(r int) int { return r },
		}, func(_ context.Context, _ int, reqs []int, out []batcher.Result[int]) error {
			mu.Lock()
			got = append(got, slices.Clone(reqs))
			mu.Unlock()
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		neg := b.Start(ctx, 1, -50)
		big := b.Start(ctx, 1, 120)
		synctest.Wait()
		mu.Lock()
		sent := slices.Clone(got)
		mu.Unlock()
		if _, err := neg.Wait(); err != nil {
			t.Fatal(err)
		}
		if _, err := big.Wait(); err != nil {
			t.Fatal(err)
		}
		b.Close()
		if !slices.EqualFunc(sent, [][]int{{-50}, {120}}, slices.Equal) &&
			!slices.EqualFunc(sent, [][]int{{120}, {-50}}, slices.Equal) {
			t.Errorf("before the linger, batches sent = %v, want [[-50] [120]] (the item over MaxBytes alone, at once)", sent)
		}
	})
}
