package cache_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/cache"
)

// TestBulkLoadMayReuseItsKeys: a bulk loader that rewrites the keys it was
// given in place (a tenant prefix for the backend, a scratch buffer) still
// fills the keys that were asked. The values were stored under the rewritten
// keys, at the hashes of the asked ones: the asked keys stayed uncached, and
// the index held entries that no lookup or invalidation of their own keys
// finds.
func TestBulkLoadMayReuseItsKeys(t *testing.T) {
	prefixing := func(_ context.Context, keys []string) ([]string, error) {
		out := make([]string, len(keys))
		for i, k := range keys {
			keys[i] = "t1:" + k // the backend's name of the key
			out[i] = "v-" + k
		}
		return out, nil
	}
	for _, name := range []string{"GetMany", "FillMany"} {
		t.Run(name, func(t *testing.T) {
			c := newCache[string, string](t, cache.Config[string]{Capacity: 100})
			var err error
			if name == "GetMany" {
				_, err = c.GetMany(context.Background(), []string{"a", "b"}, prefixing)
			} else {
				_, err = c.FillMany(context.Background(), []string{"a", "b"}, prefixing)
			}
			require.NoError(t, err)
			for _, k := range []string{"a", "b"} {
				v, ok := c.TryGet(k)
				assert.True(t, ok, "%s is cached", k)
				assert.Equal(t, "v-"+k, v)
			}
			assert.Equal(t, 2, c.Len())
		})
	}
}
