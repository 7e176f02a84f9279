package batcher_test

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/batcher"
)

// TestMaxItemsLoweredBelowOpenBatch pins what SetConfig documents: a batch
// open when MaxItems drops below its size stays open (SetConfig flushes
// nothing) until its next item joins it and closes it, so that one batch goes
// out larger than the new MaxItems; the batches after it respect it.
func TestMaxItemsLoweredBelowOpenBatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		b := newBatcher(t, batcher.Config[item]{MaxItems: 10, Linger: time.Hour}, r)
		defer b.Close()
		var wg sync.WaitGroup
		var outs []outcome
		var mu sync.Mutex
		do := func(items ...item) {
			wg.Go(func() {
				o := doAll(t.Context(), b, items, nil)
				mu.Lock()
				outs = append(outs, o...)
				mu.Unlock()
			})
			synctest.Wait()
		}
		do(item{1, 1}, item{2, 1}, item{3, 1}, item{4, 1}, item{5, 1})
		require.NoError(t, b.SetConfig(batcher.Config[item]{MaxItems: 2, Linger: time.Hour}))
		assert.Empty(t, r.snapshot(), "SetConfig flushes nothing")
		assert.Equal(t, 5, b.Stats().PendingItems)
		do(item{6, 1})
		do(item{7, 1}, item{8, 1})
		wg.Wait()
		require.Empty(t, checkOutcomes(r, outs))
		sent := r.snapshot()
		require.Len(t, sent, 2)
		assert.Len(t, sent[0].IDs, 6, "the open batch and the item that closed it")
		assert.Len(t, sent[1].IDs, 2)
	})
}
