package cache_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/cache"
)

// blockedFill starts a Get of key whose load waits for release and then
// returns "stale", and returns once the load runs: the key has a fill in
// flight. Its result, once released, comes on the returned channel.
func blockedFill(t *testing.T, c *cache.Cache[string, string], key string, release <-chan struct{}) <-chan string {
	t.Helper()
	started := make(chan struct{})
	got := make(chan string, 1)
	go func() {
		v, err := c.Get(context.Background(), key, func(context.Context) (string, error) {
			close(started)
			<-release
			return "stale", nil
		})
		assert.NoError(t, err)
		got <- v
	}()
	<-started
	return got
}

// storeOld stores "old" for key through FillMany, which shares no flight
// with Gets and, unlike Set, invalidates no fill of the key in flight.
func storeOld(t *testing.T, c *cache.Cache[string, string], key string) {
	t.Helper()
	_, err := c.FillMany(context.Background(), []string{key}, func(context.Context, []string) ([]string, error) {
		return []string{"old"}, nil
	})
	require.NoError(t, err)
	v, ok := c.TryGet(key)
	require.True(t, ok)
	require.Equal(t, "old", v)
}

// TestValidRejectDropsFills: a value that a validity check rejects is
// deleted as by Delete, so a fill of its key in flight, which may have read
// the same expired value, loses: it is not stored after the deletion
// (dropRejected's promise). And GetValid, which loads after the rejection,
// does not join that fill but starts a load of its own.
func TestValidRejectDropsFills(t *testing.T) {
	notOld := func(v string) bool { return v != "old" }
	t.Run("LookupManyValid", func(t *testing.T) {
		c, err := cache.New[string, string](cache.Config[string]{Capacity: 100})
		require.NoError(t, err)
		release := make(chan struct{})
		got := blockedFill(t, c, "k", release)
		storeOld(t, c, "k")
		missed := c.LookupManyValid([]string{"k"}, make([]string, 1), nil, notOld)
		require.Equal(t, []int{0}, missed)
		close(release)
		assert.Equal(t, "stale", <-got, "the fill's callers still get its value")
		_, ok := c.TryGet("k")
		assert.False(t, ok, "a fill in flight when the value was rejected stored its value")
		assert.Equal(t, uint64(1), c.Stats().DroppedFills)
	})
	t.Run("GetValid", func(t *testing.T) {
		c, err := cache.New[string, string](cache.Config[string]{Capacity: 100})
		require.NoError(t, err)
		release := make(chan struct{})
		got := blockedFill(t, c, "k", release)
		storeOld(t, c, "k")
		res := make(chan string, 1)
		go func() {
			v, err := c.GetValid(context.Background(), "k", notOld, func(context.Context) (string, error) {
				return "fresh", nil
			})
			assert.NoError(t, err)
			res <- v
		}()
		select {
		case v := <-res:
			assert.Equal(t, "fresh", v)
		case <-time.After(10 * time.Second):
			close(release)
			<-got
			t.Fatal("GetValid joined the fill in flight when it rejected the cached value")
		}
		close(release)
		assert.Equal(t, "stale", <-got)
		v, ok := c.TryGet("k")
		assert.True(t, ok)
		assert.Equal(t, "fresh", v, "the older fill overwrote GetValid's load")
		assert.Equal(t, uint64(1), c.Stats().DroppedFills)
	})
}
