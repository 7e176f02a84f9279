package cache_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/cache"
)

// TestFillManyNoKeys: FillMany of no keys (LookupMany found every key, the
// pattern of ExampleCache_LookupMany on an all-hit read) has nothing to load:
// it must not call the bulk loader, whose backend may reject an empty
// multi-get (Redis answers MGET with no keys with an error), nor count a
// Load. GetMany never calls the loader for an all-hit read either.
func TestFillManyNoKeys(t *testing.T) {
	c := newCache[string, string](t, cache.Config[string]{Capacity: 10})
	c.Set("a", "A")
	keys := []string{"a"}
	out := make([]string, len(keys))
	missed := c.LookupMany(keys, out, nil)
	require.Empty(t, missed)
	miss := make([]string, 0, len(missed))
	for _, i := range missed {
		miss = append(miss, keys[i])
	}
	calls := 0
	vs, err := c.FillMany(context.Background(), miss, func(_ context.Context, ks []string) ([]string, error) {
		calls++
		if len(ks) == 0 {
			return nil, errors.New("ERR wrong number of arguments for 'mget' command")
		}
		return make([]string, len(ks)), nil
	})
	require.NoError(t, err)
	assert.Empty(t, vs)
	assert.Zero(t, calls, "no backend call for no keys")
	st := c.Stats()
	assert.Zero(t, st.Loads, "nothing was loaded")
	assert.Zero(t, st.LoadErrors)
	assert.Equal(t, []string{"A"}, out)
}
