package batcher_test

import (
	"context"
	"math"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tierkit/tierkit/batcher"
)

// An item whose size is near the largest int must not overflow the batch's
// byte count: it goes in a batch of its own, as any item larger than
// MaxBytes does, and the batch it found open is flushed before it.
func TestHugeItemSizeDoesNotJoinBatch(t *testing.T) {
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
		small := b.Start(ctx, 1, 1)
		huge := b.Start(ctx, 1, math.MaxInt)
		synctest.Wait()
		mu.Lock()
		sent := slices.Clone(got)
		mu.Unlock()
		if _, err := small.Wait(); err != nil {
			t.Fatal(err)
		}
		if _, err := huge.Wait(); err != nil {
			t.Fatal(err)
		}
		b.Close()
		if want := [][]int{{1}, {math.MaxInt}}; !slices.EqualFunc(sent, want, slices.Equal) &&
			!slices.EqualFunc(sent, [][]int{{math.MaxInt}, {1}}, slices.Equal) {
			t.Errorf("before the linger, batches sent = %v, want %v (each alone, at once)", sent, want)
		}
	})
}
