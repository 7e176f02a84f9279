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

// TestFlushLatencyStats pins Stats.FlushLatencySum ("the total time spent in
// flush calls"), FlushLatencyMax ("the longest flush call") and
// MeanFlushLatency (their sum over Batches), in virtual time: two flushes of
// 3 ms and 7 ms. Only the saturation of the sum was tested: a batcher that
// recorded every flush as taking no time passed the whole suite.
func TestFlushLatencyStats(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		b := newBatcher(t, batcher.Config[item]{MaxItems: 1}, r)
		defer b.Close()
		ctx := context.Background()
		for i, d := range []time.Duration{3 * time.Millisecond, 7 * time.Millisecond} {
			r.delay.Store(int64(d))
			_, err := b.Do(ctx, 0, item{ID: i})
			require.NoError(t, err)
		}
		s := b.Stats()
		require.Equal(t, uint64(2), s.Batches)
		assert.Equal(t, 10*time.Millisecond, s.FlushLatencySum)
		assert.Equal(t, 7*time.Millisecond, s.FlushLatencyMax)
		assert.Equal(t, 5*time.Millisecond, s.MeanFlushLatency())
	})
}
