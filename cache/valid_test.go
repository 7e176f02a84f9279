package cache_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/cache"
)

// TestGetValid: a cached value that valid rejects is not served nor counted
// as a hit: it is deleted, counted as a miss, and loaded again; one it
// accepts is a hit. LookupManyValid does the same for its keys.
func TestGetValid(t *testing.T) {
	c, err := cache.New[string, string](cache.Config[string]{Capacity: 100})
	require.NoError(t, err)
	ctx := context.Background()
	loads := 0
	load := func(context.Context) (string, error) { loads++; return "v", nil }
	c.Set("k", "old")
	ok := func(v string) bool { return v != "old" }
	v, err := c.GetValid(ctx, "k", ok, load)
	require.NoError(t, err)
	assert.Equal(t, "v", v)
	assert.Equal(t, 1, loads)
	s := c.Stats()
	assert.Equal(t, cache.Stats{Hits: 0, Misses: 1, Loads: 1, Invalidations: 1}, cache.Stats{Hits: s.Hits, Misses: s.Misses, Loads: s.Loads, Invalidations: s.Invalidations})
	v, err = c.GetValid(ctx, "k", ok, load)
	require.NoError(t, err)
	assert.Equal(t, "v", v)
	assert.Equal(t, 1, loads, "an accepted value is served")
	assert.Equal(t, uint64(1), c.Stats().Hits)

	c.Set("a", "old")
	c.Set("b", "new")
	out := make([]string, 3)
	missed := c.LookupManyValid([]string{"a", "b", "c"}, out, nil, ok)
	assert.Equal(t, []int{0, 2}, missed)
	assert.Equal(t, []string{"", "new", ""}, out)
	s = c.Stats()
	assert.Equal(t, uint64(2), s.Hits)
	assert.Equal(t, uint64(3), s.Misses)
	_, found := c.TryGet("a")
	assert.False(t, found, "the rejected entry was deleted")
}
