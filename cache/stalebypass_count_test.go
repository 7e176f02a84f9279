package cache_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/tierkit/tierkit/cache"
)

// TestStaleBypassWithoutLoad pins what Stats.StaleBypass documents for the reads
// that never load: TryGet and LookupMany count a key beyond the bound as a
// stale bypass and a miss, and load nothing; Contains counts nothing.
func TestStaleBypassWithoutLoad(t *testing.T) {
	clock := &fakeClock{}
	const bound = time.Second
	c := newCache[string, int](t, cache.Config[string]{Capacity: 10, MaxStaleness: bound, Clock: clock})
	c.Set("k", 1)
	clock.Advance(bound + time.Nanosecond)

	assert.False(t, c.Contains("k"))
	assert.Equal(t, cache.Stats{Len: 1, Capacity: 10}, c.Stats())

	_, ok := c.TryGet("k")
	assert.False(t, ok)
	st := c.Stats()
	assert.Equal(t, uint64(1), st.StaleBypass)
	assert.Equal(t, uint64(1), st.Misses)
	assert.Zero(t, st.Loads)

	out := make([]int, 1)
	assert.Equal(t, []int{0}, c.LookupMany([]string{"k"}, out, nil))
	st = c.Stats()
	assert.Equal(t, uint64(2), st.StaleBypass)
	assert.Equal(t, uint64(2), st.Misses)
	assert.Zero(t, st.Loads)
}
