package cache_test

import (
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/cache"
)

// TestSetAcrossOwnsChangeIsNotStored: a Set whose Owns check ran under the
// old ring and whose store came after SetConfig handed the key away stored a
// value for a key not owned. A host whose stream skips the keys it does not
// own deletes the keys it gives up after the swap (the package doc's advice),
// and the Set landed after that Delete: when the key came back, the cache
// served the Set's value, older than a write made while the key was away.
// A Set across a SetConfig that changes Owns now stores nothing, as a fill
// across one does.
func TestSetAcrossOwnsChangeIsNotStored(t *testing.T) {
	asking, release := make(chan struct{}), make(chan struct{})
	var block atomic.Bool
	mine := cache.Config[string]{Capacity: 10, Owns: func(string) bool {
		if block.CompareAndSwap(true, false) {
			close(asking)
			<-release
		}
		return true
	}}
	other := cache.Config[string]{Capacity: 10, Owns: func(string) bool { return false }}
	c := newCache[string, int](t, mine)
	block.Store(true)
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.Set("k", 1) // its Owns check runs under the old ring
	}()
	<-asking
	require.NoError(t, c.SetConfig(other)) // the key is handed away
	c.Delete("k")                          // the host drops what it gave up
	// The key is written to 2 elsewhere; this host's stream skips it.
	close(release)
	<-done
	require.NoError(t, c.SetConfig(mine)) // and handed back
	v, ok := c.TryGet("k")
	assert.False(t, ok, "a Set across a ring swap was stored for a key not owned: served %d", v)
	assert.Equal(t, 0, c.Len())
}
