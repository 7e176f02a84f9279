package cache_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/cache"
)

// TestBulkLoadCountErrorIsTyped checks that a bulk load returning the wrong
// number of values gives an error a caller can match (it was an untyped
// fmt.Errorf), from GetMany and FillMany alike, that it names both counts,
// and that nothing is stored.
func TestBulkLoadCountErrorIsTyped(t *testing.T) {
	short := func(context.Context, []string) ([]int, error) { return []int{1}, nil }
	long := func(_ context.Context, keys []string) ([]int, error) { return make([]int, len(keys)+1), nil }
	for _, tc := range []struct {
		name string
		call func(c *cache.Cache[string, int]) ([]int, error)
		want string
	}{
		{"GetMany short", func(c *cache.Cache[string, int]) ([]int, error) {
			return c.GetMany(context.Background(), []string{"a", "b"}, short)
		}, "1 values for 2 keys"},
		{"FillMany long", func(c *cache.Cache[string, int]) ([]int, error) {
			return c.FillMany(context.Background(), []string{"a", "b"}, long)
		}, "3 values for 2 keys"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := cache.New[string, int](cache.Config[string]{Capacity: 8})
			require.NoError(t, err)
			_, err = tc.call(c)
			require.Error(t, err)
			assert.True(t, errors.Is(err, cache.ErrLoadCount), "%v", err)
			assert.Contains(t, err.Error(), tc.want)
			_, ok := c.TryGet("a")
			assert.False(t, ok, "a value of a refused load was stored")
		})
	}
}
