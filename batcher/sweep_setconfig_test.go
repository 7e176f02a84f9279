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

// TestSetConfigDoesNotPostponeSweep: a batcher whose knobs are set more often
// than every IdleTTL/2 (a tuning loop) still evicts its idle groups lazily.
// SetConfig used to move the next lazy sweep to IdleTTL/2 after itself, so
// every call pushed it back and no idle group was ever evicted.
func TestSetConfigDoesNotPostponeSweep(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := batcher.Config[item]{MaxItems: 1, IdleTTL: time.Second}
		b := newBatcher(t, cfg, newRecorder())
		defer b.Close()
		ctx := context.Background()
		_, err := b.Do(ctx, 0, item{ID: 0, Group: 0})
		require.NoError(t, err)
		for i := 1; i <= 40; i++ { // 4 s, a SetConfig every 100 ms
			time.Sleep(100 * time.Millisecond)
			require.NoError(t, b.SetConfig(cfg))
			_, err := b.Do(ctx, i, item{ID: i, Group: i}) // opens a batch
			require.NoError(t, err)
		}
		s := b.Stats()
		assert.NotZero(t, s.EvictedGroups, "groups idle for 3 s with an IdleTTL of 1 s")
		assert.Less(t, s.LiveGroups, 41)
	})
}
