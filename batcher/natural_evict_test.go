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

// TestNaturalFlushInFlightKeepsGroup: under FlushNatural, a group whose
// flush is in flight is not idle, however short IdleTTL: evicting its entry
// would forget the flush, and the next item, in a new entry, would go at
// once beside it instead of gathering until it returns (the policy's
// promise). No test checked it: a sweep that evicted such a group passed
// the suite.
func TestNaturalFlushInFlightKeepsGroup(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		r.delay.Store(int64(5 * time.Millisecond))
		b := newBatcher(t, batcher.Config[item]{MaxItems: 8, Linger: time.Second,
			Policy: batcher.FlushNatural, IdleTTL: time.Nanosecond}, r)
		defer b.Close()
		start := time.Now()
		first := b.Start(context.Background(), 0, item{ID: 0}) // flushed at once
		time.Sleep(time.Millisecond)
		assert.Zero(t, b.EvictIdle(), "a group with a flush in flight evicted")
		second := b.Start(context.Background(), 0, item{ID: 1})
		for _, p := range []batcher.Pending[int, item, int]{first, second} {
			_, err := p.Wait()
			require.NoError(t, err)
		}
		sent := r.snapshot()
		require.Len(t, sent, 2)
		assert.Equal(t, 10*time.Millisecond, sent[1].At.Sub(start),
			"the second item goes when the first flush returns (5 ms), not at once")
		assert.Equal(t, int64(1), r.maxInFlight.Load(), "two flushes of one group at once")
	})
}
