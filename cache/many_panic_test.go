package cache_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/cache"
)

// TestGetManyPanicCountsLoadError: a bulk load that panics is a load that
// gave no values, as a panicking Get load is (counted in LoadErrors there):
// it counted in Loads only, so Stats showed it as a successful load.
func TestGetManyPanicCountsLoadError(t *testing.T) {
	c := newCache[string, string](t, cache.Config[string]{Capacity: 10})
	require.Panics(t, func() {
		_, _ = c.GetMany(context.Background(), []string{"a", "b"}, func(context.Context, []string) ([]string, error) {
			panic("backend bug")
		})
	})
	_, err := c.Get(context.Background(), "c", func(context.Context) (string, error) { panic("backend bug") })
	require.Error(t, err)
	st := c.Stats()
	assert.Equal(t, uint64(2), st.Loads)
	assert.Equal(t, uint64(2), st.LoadErrors, "each panicking load counts as a load error")
}
