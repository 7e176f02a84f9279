package cache_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/cache"
)

// TestRefillBeforeFirstCheckpointIsNotVouched: the cache's creation counts
// as a checkpoint because an empty cache reflects every change, but a value
// refilled from the stream is not empty: a stream that starts behind the
// store (a consumer resuming from a stored offset) refills a key with an old
// version. Until a checkpoint says the stream has caught up, nothing vouches
// for that value; it was served as fresh for the bound after New, older than
// the value the cache had just loaded.
func TestRefillBeforeFirstCheckpointIsNotVouched(t *testing.T) {
	clock := &fakeClock{}
	clock.Advance(time.Hour) // the store's key was written at version 3 an hour ago
	const bound = time.Second
	c := newCache[string, string](t, cache.Config[string]{Capacity: 10, MaxStaleness: bound, Clock: clock})
	load := func(context.Context) (string, error) { return "v3", nil }
	v, err := c.Get(context.Background(), "k", load)
	require.NoError(t, err)
	require.Equal(t, "v3", v)

	// The stream starts behind: it delivers version 2 of the key.
	c.Apply(cache.Event[string, string]{Kind: cache.Write, Key: "k", Version: 2, Value: "v2", Refill: true})
	clock.Advance(bound / 2)
	v, ok := c.TryGet("k")
	assert.False(t, ok, "served %q, which misses a change committed an hour ago, with no checkpoint", v)
	assert.Equal(t, bound/2, c.CheckpointAge(), "before the first checkpoint, the age of the cache")

	// Once the stream has caught up, its checkpoint vouches for the refill.
	c.Apply(cache.Event[string, string]{Kind: cache.Write, Key: "k", Version: 3, Value: "v3", Refill: true},
		cache.Event[string, string]{Kind: cache.Checkpoint, Version: 3})
	v, ok = c.TryGet("k")
	assert.True(t, ok)
	assert.Equal(t, "v3", v)
	assert.Equal(t, time.Duration(0), c.CheckpointAge())

	// A value loaded is still vouched for by its load, a Set by its Set.
	c2 := newCache[string, string](t, cache.Config[string]{Capacity: 10, MaxStaleness: bound, Clock: clock})
	_, err = c2.Get(context.Background(), "k", load)
	require.NoError(t, err)
	c2.Set("s", "x")
	clock.Advance(bound)
	_, ok = c2.TryGet("k")
	assert.True(t, ok, "loaded within the bound")
	_, ok = c2.TryGet("s")
	assert.True(t, ok, "Set within the bound")
}

// TestUnvouchedBeyondAnyBound: what only checkpoints vouch for (a refilled
// value, or one stored while no bound was set) is not served before the
// first checkpoint, however long the bound. Unvouched was a time 146 years
// before New, so a bound longer than that (the largest Duration, say)
// served both.
func TestUnvouchedBeyondAnyBound(t *testing.T) {
	for _, bound := range []time.Duration{math.MaxInt64, 1 << 62, 200 * 365 * 24 * time.Hour} {
		clock := &fakeClock{}
		c := newCache[string, int](t, cache.Config[string]{Capacity: 10, Clock: clock})
		c.Set("stored", 1) // no bound: only checkpoints vouch for it
		require.NoError(t, c.SetConfig(cache.Config[string]{Capacity: 10, MaxStaleness: bound}))
		c.Set("refilled", 1)
		c.Apply(cache.Event[string, int]{Kind: cache.Write, Key: "refilled", Version: 1, Value: 2, Refill: true})
		clock.Advance(time.Second)
		for _, k := range []string{"stored", "refilled"} {
			v, ok := c.TryGet(k)
			assert.False(t, ok, "bound %v: %s value %d served before any checkpoint", bound, k, v)
		}
	}
}
