package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/batcher"
)

// TestBatcherBatchingClaimsAreChecked: the batcher section, under the title
// "many callers' requests become a few full backend calls", printed "N
// requests ... -> M backend calls" and "mean batch %.1f of 32 (fill %.0f%%)"
// with no floor or ceiling: a batcher that flushed every request alone
// printed "-> 20,480 backend calls ... mean batch 1.0 of 32 (fill 3%)", and
// one that overfilled its batches a fill above 100%, both with exit status
// 0. Found by a review.
func TestBatcherBatchingClaimsAreChecked(t *testing.T) {
	const n = 20_480
	stats := func(batches uint64, fill float64) batcher.Stats {
		return batcher.Stats{Items: n, Sent: n, Batches: batches, MeanFill: fill}
	}
	require.NoError(t, verify(batcherBatchingClaims(n, 32, 700, stats(700, 0.91))...))
	require.NoError(t, verify(batcherBatchingClaims(n, 32, 640, stats(640, 1))...), "every batch full")

	err := verify(batcherBatchingClaims(n, 32, n, stats(n, 1.0/32))...)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "a few full backend calls: a mean batch of at least 16 of 32 (fill 50%), not 1.0 (fill 3%)")
	err = verify(batcherBatchingClaims(n, 32, 1600, stats(1600, 0.4))...)
	require.Error(t, err, "a mean batch of 12.8: batches not full")
	err = verify(batcherBatchingClaims(n, 32, 320, stats(320, 2))...)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "at most 32 requests per backend call, not a mean of 64.0 (fill 200%)")
	err = verify(batcherBatchingClaims(n, 32, 700, stats(690, 0.92))...)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "20480 requests in 700 backend calls, not 20480 items in 690 batches")
}
