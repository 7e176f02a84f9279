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

// TestValidRejectKeepsLaterSet: a value stored between a validity check that
// rejected the old one and the deletion that follows (here by valid itself,
// the narrowest window a concurrent Set could hit) is kept: only the rejected
// value is deleted. Values held in the entry's bits (int64) and in its val
// (string) both.
func TestValidRejectKeepsLaterSet(t *testing.T) {
	t.Run("string", func(t *testing.T) {
		c, err := cache.New[string, string](cache.Config[string]{Capacity: 100})
		require.NoError(t, err)
		c.Set("k", "old")
		valid := func(v string) bool {
			if v == "old" {
				c.Set("k", "new")
			}
			return v != "old"
		}
		missed := c.LookupManyValid([]string{"k"}, make([]string, 1), nil, valid)
		assert.Equal(t, []int{0}, missed, "the old value is not served")
		v, ok := c.TryGet("k")
		assert.True(t, ok, "the value set after the check was deleted")
		assert.Equal(t, "new", v)
	})
	t.Run("int64", func(t *testing.T) {
		c, err := cache.New[string, int64](cache.Config[string]{Capacity: 100})
		require.NoError(t, err)
		c.Set("k", 1)
		valid := func(v int64) bool {
			if v == 1 {
				c.Set("k", 2)
			}
			return v != 1
		}
		missed := c.LookupManyValid([]string{"k"}, make([]int64, 1), nil, valid)
		assert.Equal(t, []int{0}, missed, "the old value is not served")
		v, ok := c.TryGet("k")
		assert.True(t, ok, "the value set after the check was deleted")
		assert.Equal(t, int64(2), v)
		assert.Equal(t, uint64(0), c.Stats().Invalidations, "nothing was deleted")
	})
}

// TestGetValidNilCheck: LookupManyValid takes a nil check as "every value is
// valid"; GetValid, its single-key form, dereferenced it on a hit (found by a
// review). It now serves the hit, as Get does.
func TestGetValidNilCheck(t *testing.T) {
	c, err := cache.New[string, int](cache.Config[string]{})
	require.NoError(t, err)
	load := func(context.Context) (int, error) { return 2, nil }
	v, err := c.GetValid(context.Background(), "k", nil, load) // a miss loads
	require.NoError(t, err)
	require.Equal(t, 2, v)
	c.Set("k", 1)
	v, err = c.GetValid(context.Background(), "k", nil, load) // a hit
	require.NoError(t, err)
	require.Equal(t, 1, v)
	st := c.Stats()
	require.Equal(t, uint64(1), st.Hits)
	require.Equal(t, uint64(1), st.Loads)
}
