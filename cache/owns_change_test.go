package cache_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/cache"
)

// TestOwnsChangeKeepsEntries pins what the Ownership section of the package
// doc says: a change of ownership drops nothing; an entry of a key given up
// is not served, still counts in Len, and is served again when the key comes
// back, unless an event retired it meanwhile.
func TestOwnsChangeKeepsEntries(t *testing.T) {
	var owned atomic.Bool
	owned.Store(true)
	c := newCache[string, int](t, cache.Config[string]{Capacity: 10, Owns: func(string) bool { return owned.Load() }})
	c.Set("a", 1)
	c.Set("b", 1)

	owned.Store(false) // a ring swap
	_, ok := c.TryGet("a")
	assert.False(t, ok, "not served while not owned")
	assert.Equal(t, 2, c.Len(), "nor dropped")
	c.Apply(cache.Event[string, int]{Kind: cache.Write, Key: "b", Version: 2}) // b changed elsewhere

	owned.Store(true) // and back
	v, ok := c.TryGet("a")
	assert.True(t, ok, "served again")
	assert.Equal(t, 1, v)
	got, err := c.Get(context.Background(), "b", func(context.Context) (int, error) { return 2, nil })
	require.NoError(t, err)
	assert.Equal(t, 2, got, "an event while not owned retired b")
}
