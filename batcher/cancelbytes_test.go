package batcher_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/batcher"
)

// TestCancelledItemFreesItsBytes: an item whose caller left before dispatch
// is removed from its batch, and so are its bytes: they no longer count
// toward MaxBytes. Items of 3 and 6 bytes, the 6 leaves, then another of 6
// bytes joins the open batch (9 of 10 bytes) and the two go out together
// at the linger. No test checked it: a batcher that kept counting a
// cancelled item's bytes (closing the batch early, before the new item)
// passed the suite.
func TestCancelledItemFreesItsBytes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sizes := map[int]int{0: 3, 1: 6, 2: 6}
		r := newRecorder()
		b := newBatcher(t, batcher.Config[item]{
			MaxItems: 8, Linger: time.Millisecond, MaxBytes: 10,
			Size: func(it item) int { return sizes[it.ID] },
		}, r)
		defer b.Close()
		bg := context.Background()
		a := b.Start(bg, 0, item{ID: 0})
		leaving, cancel := context.WithCancel(bg)
		left := b.Start(leaving, 0, item{ID: 1})
		cancel()
		_, err := left.Wait()
		require.ErrorIs(t, err, context.Canceled)
		c := b.Start(bg, 0, item{ID: 2})
		for _, p := range []batcher.Pending[int, item, int]{a, c} {
			_, err := p.Wait()
			require.NoError(t, err)
		}
		sent := r.snapshot()
		require.Len(t, sent, 1, "3 + 6 bytes fit in 10 once the other 6 left")
		assert.Equal(t, []int{0, 2}, sent[0].IDs)
		assert.Equal(t, uint64(1), b.Stats().Cancelled)
	})
}
