package cache_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/cache"
)

// TestSetConfigWithSameOwnsDropsFillsInFlight pins what Config.Owns and
// SetConfig say: the cache cannot compare functions, so a SetConfig that
// changes only the capacity but passes an Owns, the same one as Config
// returns included, counts as a change of ownership. A fill in flight
// across it returns its value but stores nothing.
func TestSetConfigWithSameOwnsDropsFillsInFlight(t *testing.T) {
	c := newCache[string, int](t, cache.Config[string]{Capacity: 10, Owns: func(string) bool { return true }})
	v, err := c.Get(context.Background(), "k", func(context.Context) (int, error) {
		cfg := c.Config() // the same Owns
		cfg.Capacity = 20
		require.NoError(t, c.SetConfig(cfg))
		return 1, nil
	})
	require.NoError(t, err)
	assert.Equal(t, 1, v, "the callers get the value")
	_, ok := c.TryGet("k")
	assert.False(t, ok, "a fill across a SetConfig with an Owns stores nothing, even the same Owns")

	// Without an Owns on either side, a capacity change keeps the fill.
	plain := newCache[string, int](t, cache.Config[string]{Capacity: 10})
	_, err = plain.Get(context.Background(), "k", func(context.Context) (int, error) {
		require.NoError(t, plain.SetConfig(cache.Config[string]{Capacity: 20}))
		return 1, nil
	})
	require.NoError(t, err)
	_, ok = plain.TryGet("k")
	assert.True(t, ok, "a SetConfig without Owns leaves fills in flight alone")
}
