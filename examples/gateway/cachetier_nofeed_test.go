package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCacheTierServesFillsWithoutFeed: a shard whose feed has not subscribed
// (down at start, refused, lost) gets no checkpoint, yet a value filled then
// is served from the cache within one bound of its fill (the fill vouches
// for it), as the README says; it does not serve "no hit".
func TestCacheTierServesFillsWithoutFeed(t *testing.T) {
	ct, err := newCacheTier(1, 100, time.Minute)
	require.NoError(t, err)
	defer ct.Close()
	loads := 0
	load := func(context.Context) (opResult, error) {
		loads++
		return opResult{value: []byte("v"), found: true}, nil
	}
	for range 3 {
		r, err := ct.get(context.Background(), 0, "k", load)
		require.NoError(t, err)
		assert.Equal(t, "v", string(r.value))
	}
	assert.Equal(t, 1, loads, "no feed, no checkpoint: the fill alone vouches for its value")
	st := ct.stats()
	assert.Equal(t, uint64(2), st["hits"])
	assert.Equal(t, uint64(1), st["misses"])
}
