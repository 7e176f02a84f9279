package cache_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/cache"
)

// A read of a key not owned is never stored (Config.Owns), not even when
// the key becomes owned while its load runs: a host whose stream skips the
// keys it does not own saw no event of the key during that load, so the
// value may predate a change, and nothing would ever retire it.
func TestReadNotOwnedIsNotStoredWhenOwnershipArrivesDuringLoad(t *testing.T) {
	var owned atomic.Bool
	c := newCache[string, int](t, cache.Config[string]{Capacity: 10, Owns: func(string) bool { return owned.Load() }})
	started, release, done := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		v, err := c.Get(context.Background(), "k", func(context.Context) (int, error) {
			close(started)
			<-release
			return 1, nil
		})
		assert.NoError(t, err)
		assert.Equal(t, 1, v)
	}()
	<-started
	owned.Store(true) // a ring swap hands the key to this host
	close(release)
	<-done
	_, ok := c.TryGet("k")
	require.False(t, ok, "the load of a read not owned was stored")
	assert.Equal(t, 0, c.Len())
	assert.Equal(t, uint64(1), c.Stats().NotOwned)
}
