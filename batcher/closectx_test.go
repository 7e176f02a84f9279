package batcher_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/batcher"
)

// TestKeptFlushContextDoneByClose pins FlushFunc's promise that a flush
// context kept after the flush returned "is done at its deadline, or by the
// time Close returns if that comes first (its Err is then DeadlineExceeded
// early), so that nothing watching it outlives the batcher". With a
// FlushTimeout of an hour, a context kept by the flush (and one derived from
// it) must be done as soon as Close has returned. No test checked it: a Close
// that left the deadline timers running passed the suite.
func TestKeptFlushContextDoneByClose(t *testing.T) {
	kept := make(chan context.Context, 1)
	b, err := batcher.New(batcher.Config[int]{MaxItems: 1, FlushTimeout: time.Hour},
		func(ctx context.Context, _ int, _ []int, _ []batcher.Result[int]) error {
			kept <- ctx
			return nil
		})
	require.NoError(t, err)
	_, err = b.Do(context.Background(), 0, 0)
	require.NoError(t, err)
	ctx := <-kept
	derived, cancel := context.WithCancel(ctx)
	defer cancel()
	require.NoError(t, ctx.Err(), "done before its deadline, an hour away, and before Close")

	require.NoError(t, b.Close())
	select {
	case <-ctx.Done():
	default:
		t.Fatal("a kept flush context is not done once Close has returned")
	}
	require.ErrorIs(t, ctx.Err(), context.DeadlineExceeded)
	select {
	case <-derived.Done(): // context's own goroutine propagates: poll with a bound
	case <-time.After(10 * time.Second):
		t.Fatal("a context derived from a kept flush context is not done after Close")
	}
}
