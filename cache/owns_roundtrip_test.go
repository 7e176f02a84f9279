package cache_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/cache"
)

// roundTrip runs a Get of "k" whose load reads v0, and while it runs calls
// away (the key is handed to another host), then back (handed back), then
// lets the load end. It returns what the cache serves afterwards.
func roundTrip(t *testing.T, c *cache.Cache[string, int], away, back func()) (int, bool) {
	t.Helper()
	started, release, done := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		v, err := c.Get(context.Background(), "k", func(context.Context) (int, error) {
			close(started)
			<-release
			return 1, nil // read from the backend before the write below
		})
		assert.NoError(t, err)
		assert.Equal(t, 1, v)
	}()
	<-started
	away()
	back()
	close(release)
	<-done
	return c.TryGet("k")
}

// A load that starts while the key is owned, and ends after the key was
// handed away and back with SetConfig (a ring swap and back), must not
// store: while the key was away this host's stream skipped its events (or a
// write went through the other host's cache), so no invalidation made the
// load lose, and its value may predate a change (no stale sets).
func TestFillAcrossOwnershipRoundTripIsNotStored(t *testing.T) {
	mine := cache.Config[string]{Capacity: 10, Owns: func(string) bool { return true }}
	other := cache.Config[string]{Capacity: 10, Owns: func(string) bool { return false }}
	c := newCache[string, int](t, mine)
	v, ok := roundTrip(t, c, func() {
		require.NoError(t, c.SetConfig(other))
		// The key is written to 2 now; the stream of this host, which
		// skips keys it does not own, delivers no event of it.
	}, func() { require.NoError(t, c.SetConfig(mine)) })
	require.False(t, ok, "a load older than a write made while the key was away was stored: served %d", v)
	assert.Equal(t, 0, c.Len())
}

// The cache itself applies the events of a key it does not own: a load
// racing a Write delivered while the key was away loses.
func TestFillAcrossOwnershipRoundTripLosesToEventWhileAway(t *testing.T) {
	mine := cache.Config[string]{Capacity: 10, Owns: func(string) bool { return true }}
	other := cache.Config[string]{Capacity: 10, Owns: func(string) bool { return false }}
	c := newCache[string, int](t, mine)
	_, ok := roundTrip(t, c, func() {
		require.NoError(t, c.SetConfig(other))
		c.Apply(cache.Event[string, int]{Kind: cache.Write, Key: "k", Version: 2})
	}, func() { require.NoError(t, c.SetConfig(mine)) })
	require.False(t, ok, "a load older than an event applied while the key was away was stored")
	assert.Equal(t, uint64(1), c.Stats().DroppedFills)
}

// FillMany follows the same rule as Get across a ring swap and back.
func TestFillManyAcrossOwnershipRoundTripIsNotStored(t *testing.T) {
	mine := cache.Config[string]{Capacity: 10, Owns: func(string) bool { return true }}
	other := cache.Config[string]{Capacity: 10, Owns: func(string) bool { return false }}
	c := newCache[string, int](t, mine)
	vs, err := c.FillMany(context.Background(), []string{"k"}, func(_ context.Context, ks []string) ([]int, error) {
		require.NoError(t, c.SetConfig(other)) // the load has read 1; the key is written to 2 elsewhere
		require.NoError(t, c.SetConfig(mine))
		return []int{1}, nil
	})
	require.NoError(t, err)
	assert.Equal(t, []int{1}, vs)
	_, ok := c.TryGet("k")
	require.False(t, ok, "a bulk load across a ring swap and back was stored")
}

// A round trip from no Owns (every key owned) to an Owns that gives the key
// away and back to no Owns is a ring swap and back too: the configurations
// at the load's two ends both lack Owns, but one with an Owns came in
// between, and the load must not store.
func TestFillAcrossOwnsSetAndRemovedIsNotStored(t *testing.T) {
	all := cache.Config[string]{Capacity: 10}
	other := cache.Config[string]{Capacity: 10, Owns: func(string) bool { return false }}
	c := newCache[string, int](t, all)
	v, ok := roundTrip(t, c, func() { require.NoError(t, c.SetConfig(other)) },
		func() { require.NoError(t, c.SetConfig(all)) })
	require.False(t, ok, "a load across an Owns set and removed was stored: served %d", v)
	assert.Equal(t, 0, c.Len())

	vs, err := c.FillMany(context.Background(), []string{"k"}, func(_ context.Context, ks []string) ([]int, error) {
		require.NoError(t, c.SetConfig(other))
		require.NoError(t, c.SetConfig(all))
		return []int{1}, nil
	})
	require.NoError(t, err)
	assert.Equal(t, []int{1}, vs)
	_, ok = c.TryGet("k")
	require.False(t, ok, "a bulk load across an Owns set and removed was stored")
}
