package cache_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/cache"
)

// A multi-key read of keys not owned stores none of them (Config.Owns), not
// even those that become owned while the bulk load runs, as Get does: a host
// whose stream skips the keys it does not own saw no event of them during
// that load, so the values may predate a change.
func TestManyNotOwnedAreNotStoredWhenOwnershipArrivesDuringLoad(t *testing.T) {
	for _, tc := range []struct {
		name string
		read func(c *cache.Cache[string, int], keys []string, load func(context.Context, []string) ([]int, error)) ([]int, error)
	}{
		{name: "GetMany", read: func(c *cache.Cache[string, int], keys []string, load func(context.Context, []string) ([]int, error)) ([]int, error) {
			return c.GetMany(context.Background(), keys, load)
		}},
		{name: "LookupMany+FillMany", read: func(c *cache.Cache[string, int], keys []string, load func(context.Context, []string) ([]int, error)) ([]int, error) {
			out := make([]int, len(keys))
			missed := c.LookupMany(keys, out, nil)
			mk := make([]string, len(missed))
			for j, i := range missed {
				mk[j] = keys[i]
			}
			vs, err := c.FillMany(context.Background(), mk, load)
			for j, i := range missed {
				out[i] = vs[j]
			}
			return out, err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var flipped atomic.Bool // "a" is owned throughout, "b" only once flipped
			c := newCache[string, int](t, cache.Config[string]{Capacity: 10, Owns: func(k string) bool {
				return k == "a" || flipped.Load()
			}})
			vs, err := tc.read(c, []string{"a", "b"}, func(_ context.Context, ks []string) ([]int, error) {
				flipped.Store(true) // a ring swap hands "b" to this host
				return []int{1, 2}, nil
			})
			require.NoError(t, err)
			assert.Equal(t, []int{1, 2}, vs)
			v, ok := c.TryGet("a")
			assert.True(t, ok, "an owned key's load was not stored")
			assert.Equal(t, 1, v)
			_, ok = c.TryGet("b")
			assert.False(t, ok, "the load of a key not owned was stored")
			assert.Equal(t, 1, c.Len())
		})
	}
}

// FillMany, whose caller may have looked the keys up on its own, asks Owns
// when it starts: a key not owned then is not stored, even if it is owned
// when the load ends.
func TestFillManyOfKeyNotOwnedAtStartIsNotStored(t *testing.T) {
	var owned atomic.Bool
	c := newCache[string, int](t, cache.Config[string]{Capacity: 10, Owns: func(string) bool { return owned.Load() }})
	vs, err := c.FillMany(context.Background(), []string{"k"}, func(context.Context, []string) ([]int, error) {
		owned.Store(true)
		return []int{1}, nil
	})
	require.NoError(t, err)
	assert.Equal(t, []int{1}, vs)
	_, ok := c.TryGet("k")
	assert.False(t, ok, "the load of a key not owned was stored")
	assert.Equal(t, 0, c.Len())
}

// GetMany stores none of the keys its lookup found not owned, even one owned
// by the time its load starts: the read asked, as Get's does.
func TestGetManyKeyNotOwnedAtLookupIsNotStored(t *testing.T) {
	var asked atomic.Int32 // Owns says no the first time only: at the lookup
	c := newCache[string, int](t, cache.Config[string]{Capacity: 10, Owns: func(string) bool { return asked.Add(1) > 1 }})
	vs, err := c.GetMany(context.Background(), []string{"k"}, func(context.Context, []string) ([]int, error) {
		return []int{1}, nil
	})
	require.NoError(t, err)
	assert.Equal(t, []int{1}, vs)
	_, ok := c.TryGet("k")
	assert.False(t, ok, "the load of a key the read found not owned was stored")
	assert.Equal(t, 0, c.Len())
	assert.Equal(t, uint64(1), c.Stats().NotOwned)
}
