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

// An item larger than MaxBytes goes in a batch of its own, at once, and the
// batch it found open is flushed before it, whatever the first item's size
// did to the batch's byte count: a size near the largest int must not
// overflow it, and a negative size (a length computation gone wrong) counts
// as 0 rather than lowering it and making room past MaxBytes.
func TestOversizeItemDoesNotJoinBatch(t *testing.T) {
	for _, tc := range []struct {
		name         string
		first, large int
	}{
		{"huge size", 1, math.MaxInt},
		{"after a negative size", -50, 120},
	} {
		t.Run(tc.name, func(t *testing.T) {
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
				first := b.Start(ctx, 1, tc.first)
				large := b.Start(ctx, 1, tc.large)
				synctest.Wait()
				mu.Lock()
				sent := slices.Clone(got)
				mu.Unlock()
				if _, err := first.Wait(); err != nil {
					t.Fatal(err)
				}
				if _, err := large.Wait(); err != nil {
					t.Fatal(err)
				}
				b.Close()
				if want := [][]int{{tc.first}, {tc.large}}; !slices.EqualFunc(sent, want, slices.Equal) &&
					!slices.EqualFunc(sent, [][]int{{tc.large}, {tc.first}}, slices.Equal) {
					t.Errorf("before the linger, batches sent = %v, want %v (each alone, at once)", sent, want)
				}
			})
		})
	}
}
