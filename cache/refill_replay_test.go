package cache_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/cache"
)

// TestRefillAtOrBelowWatermarkIsNotServed: a checkpoint at W says every
// change with a version up to W was delivered before it, so a refill at a
// version up to W that comes after it is a replay (a consumer that resumed
// from an older offset, as at-least-once delivery does after a reconnect).
// Its value may be older than the one the cache loaded since, and the newest
// checkpoint, genuine and recent, vouched for it: the cache served a value
// that missed a change committed long before the bound.
func TestRefillAtOrBelowWatermarkIsNotServed(t *testing.T) {
	type ev = cache.Event[string, string]
	for _, version := range []uint64{5, 9} {
		clock := &fakeClock{}
		const bound = time.Second
		c := newCache[string, string](t, cache.Config[string]{Capacity: 10, MaxStaleness: bound, Clock: clock})
		clock.Advance(time.Hour) // the key was written at version 7 an hour ago
		c.Apply(ev{Kind: cache.Checkpoint, Version: 9})
		v, err := c.Get(context.Background(), "k", func(context.Context) (string, error) { return "v7", nil })
		require.NoError(t, err)
		require.Equal(t, "v7", v)

		// The consumer reconnects and the stream replays from an older offset.
		c.Apply(ev{Kind: cache.Write, Key: "k", Version: version, Value: "old", Refill: true})
		clock.Advance(bound / 2)
		if v, ok := c.TryGet("k"); ok {
			assert.Equal(t, "v7", v, "a replayed refill at version %d after the checkpoint at 9 replaced the loaded value", version)
		}
		st := c.Stats()
		assert.Zero(t, st.Refills, "version %d", version)
	}
}
