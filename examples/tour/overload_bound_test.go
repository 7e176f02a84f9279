package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/batcher"
)

// TestBatcherOverloadLoopIsBounded: the batcher section's 2,000 requests
// past MaxInFlight each called Do with context.Background() while the
// backend was stalled, and the backend recovers only after that loop. A
// batcher that queued one of them instead of refusing it, what the "none
// queued" claim is there to catch, would have blocked it for ever: the tour
// hung before reaching the check, where the package doc promises that a
// wait on the batcher gives up after tourWait. The loop's requests now share
// a context that ends after the bound. Found by a review.
func TestBatcherOverloadLoopIsBounded(t *testing.T) {
	const bound = 20 * time.Millisecond
	done := make(chan int, 1)
	go func() {
		done <- overloadRejects(bound, 10, func(ctx context.Context, i int) error {
			if i == 3 { // queued: answered only when the stalled backend recovers
				<-ctx.Done()
				return ctx.Err()
			}
			return batcher.ErrOverloaded
		})
	}()
	rejected, err := recvWithin(tourWait, "the overload loop to give up on a queued request", done)
	require.NoError(t, err)
	assert.Equal(t, 9, rejected, "the queued request is not counted as rejected")
}
