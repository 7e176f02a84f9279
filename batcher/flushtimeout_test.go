package batcher_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/tierkit/tierkit/batcher"
)

// A very large FlushTimeout (the natural way to say "no timeout": the
// config accepts any non-negative duration) must not end the flush context
// at once.
func TestHugeFlushTimeout(t *testing.T) {
	for _, ft := range []time.Duration{math.MaxInt64, math.MaxInt64 - time.Millisecond} {
		type got struct {
			err error
			dl  time.Time
		}
		ch := make(chan got, 1)
		b, err := batcher.New(batcher.Config[int]{MaxItems: 1, FlushTimeout: ft},
			func(ctx context.Context, _ int, reqs []int, out []batcher.Result[int]) error {
				time.Sleep(5 * time.Millisecond)
				dl, _ := ctx.Deadline()
				ch <- got{ctx.Err(), dl}
				return nil
			})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.Do(context.Background(), 1, 1); err != nil {
			t.Fatal(err)
		}
		g := <-ch
		b.Close()
		if g.err != nil || !g.dl.After(time.Now()) {
			t.Errorf("FlushTimeout %v: flush ctx.Err() = %v, Deadline = %v (in the past: %v)", ft, g.err, g.dl, !g.dl.After(time.Now()))
		}
	}
}
