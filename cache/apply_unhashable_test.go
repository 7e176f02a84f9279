package cache_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/cache"
)

// Apply applies its events in order. A key that cannot be hashed (K an
// interface holding a slice: a programmer error, which panics as a map
// would) stops it there; the invalidations before that event must have been
// applied, as they are when each event comes in its own call. The run's
// lookahead hashed every key of the run before applying any, so a Delete
// just before the bad event was lost, and a process that recovers the
// panic (a stream consumer that logs and goes on) kept serving the value it
// removes.
func TestApplyRunAppliesInvalidationsBeforeAnUnhashableKey(t *testing.T) {
	c, err := cache.New[any, int](cache.Config[any]{Capacity: 10})
	require.NoError(t, err)
	c.Set("a", 1)
	c.Set("b", 2)
	c.Set("c", 3)

	assert.Panics(t, func() {
		c.Apply(
			cache.Event[any, int]{Kind: cache.Delete, Key: "a", Version: 1},
			cache.Event[any, int]{Kind: cache.Write, Key: "b", Version: 2},
			cache.Event[any, int]{Kind: cache.Delete, Key: []int{1}, Version: 3},
			cache.Event[any, int]{Kind: cache.Delete, Key: "c", Version: 4},
		)
	})

	_, ok := c.TryGet("a")
	assert.False(t, ok, "the Delete before the bad event was applied")
	_, ok = c.TryGet("b")
	assert.False(t, ok, "the Write before the bad event was applied")
	v, ok := c.TryGet("c")
	assert.True(t, ok, "the event after the bad one was not")
	assert.Equal(t, 3, v)
	assert.Equal(t, uint64(2), c.Stats().Invalidations)
}
