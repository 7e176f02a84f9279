package cache_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/cache"
)

// A Set while the key is handed away (a ring swap and back) is still a Set:
// a fill that started before it must not store its older value once the key
// is owned again (no stale set).
func TestSetOfKeyNotOwnedMakesFillLose(t *testing.T) {
	var owned atomic.Bool
	owned.Store(true)
	c := newCache[string, int](t, cache.Config[string]{Capacity: 10, Owns: func(string) bool { return owned.Load() }})
	started, release, done := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		v, err := c.Get(context.Background(), "k", func(context.Context) (int, error) {
			close(started)
			<-release
			return 1, nil // read from the backend before the Set
		})
		assert.NoError(t, err)
		assert.Equal(t, 1, v)
	}()
	<-started
	owned.Store(false)
	c.Set("k", 2) // the caller vouches for 2 as current
	owned.Store(true)
	close(release)
	<-done
	if v, ok := c.TryGet("k"); ok {
		assert.Equal(t, 2, v, "a fill that started before a Set stored its older value")
	}
}

// A value cached while the key was owned must not be served after a Set made
// while it was not.
func TestSetOfKeyNotOwnedDropsCachedValue(t *testing.T) {
	var owned atomic.Bool
	owned.Store(true)
	c := newCache[string, int](t, cache.Config[string]{Capacity: 10, Owns: func(string) bool { return owned.Load() }})
	c.Set("k", 1)
	owned.Store(false)
	c.Set("k", 2)
	owned.Store(true)
	if v, ok := c.TryGet("k"); ok {
		require.Equal(t, 2, v, "served the value a later Set replaced")
	}
}
