package batcher_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/batcher"
)

// TestCancelledOnEntry: a caller whose context has already ended when it
// calls Do or Start gets ctx.Err() and its item is never sent; Stats counts
// it in Cancelled, as it counts an item whose caller left its open batch.
// It was counted nowhere: a host that reads Items + Rejected + Cancelled as
// the calls that came in lost every call made on a context already done (a
// request whose deadline passed in a queue in front of the batcher).
func TestCancelledOnEntry(t *testing.T) {
	r := newRecorder()
	b := newBatcher(t, batcher.Config[item]{MaxItems: 10, Linger: time.Hour}, r)
	defer b.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()

	_, err := b.Do(ctx, 1, item{1, 1})
	require.ErrorIs(t, err, context.Canceled)
	_, err = b.Start(ctx, 1, item{2, 1}).Wait()
	require.ErrorIs(t, err, context.Canceled)

	s := b.Stats()
	assert.Equal(t, uint64(2), s.Cancelled, "both calls refused for their ended context")
	assert.Zero(t, s.PendingItems)
	assert.Zero(t, s.Items)
	assert.Empty(t, r.snapshot(), "nothing sent")
}
