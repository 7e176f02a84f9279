package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/cache"
	"github.com/tierkit/tierkit/coalesce"
)

// TestOneFetchClaimsAreChecked: the coalesce and cache sections printed
// "-> %d backend fetch" and "-> %d backend load(s)" from their counters but
// went on, exit status 0, whatever the count: a Group or Cache that fetched
// twice for one stampede would have been described, not caught, under titles
// that promise one fetch. The claims are now verified before the line is
// printed. Found by a review.
func TestOneFetchClaimsAreChecked(t *testing.T) {
	ok := coalesce.Stats{Calls: 100, Joins: 99}
	require.NoError(t, verify(coalesceStampedeClaims(100, ok, 1)...))
	err := verify(coalesceStampedeClaims(100, coalesce.Stats{Calls: 100, Joins: 98}, 2)...)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "share 1 backend fetch, not 2")
	require.Error(t, verify(coalesceStampedeClaims(100, coalesce.Stats{Calls: 99, Joins: 98}, 1)...))

	require.NoError(t, verify(cacheHerdClaims(1000, cache.Stats{Loads: 1, Coalesced: 990, Hits: 9}, 1)...))
	err = verify(cacheHerdClaims(1000, cache.Stats{Loads: 2, Coalesced: 990, Hits: 8}, 2)...)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "makes 1 backend load, not 2")
}
