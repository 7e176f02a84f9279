package hashring_test

import (
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/hashring"
)

// TestNilRingIsEmpty: a proxy that publishes rings through an
// atomic.Pointer[Ring] reads nil before the first Store. Lookups on that nil
// *Ring panicked (the package says lookups never panic); they answer as the
// empty ring does, with ErrEmpty, and so do the membership queries.
func TestNilRingIsEmpty(t *testing.T) {
	var published atomic.Pointer[hashring.Ring]
	r := published.Load()
	require.Nil(t, r)

	_, err := r.Lookup("k")
	require.ErrorIs(t, err, hashring.ErrEmpty)
	_, err = r.LookupHash(1)
	require.ErrorIs(t, err, hashring.ErrEmpty)
	_, err = r.LookupN("k", 2)
	require.ErrorIs(t, err, hashring.ErrEmpty)
	assert.Equal(t, []string{"x"}, r.AppendLookupNHash([]string{"x"}, 1, 2))
	_, err = r.LookupBounded("k", 1.25, &hashring.Loads{})
	require.ErrorIs(t, err, hashring.ErrEmpty)
	_, err = r.LookupBoundedHash(1, 1.25, nil)
	require.ErrorIs(t, err, hashring.ErrEmpty)
	_, err = r.LookupBounded("k", 0.5, nil)
	require.ErrorIs(t, err, hashring.ErrBadLoadFactor, "the load factor is checked first, as on an empty ring")

	var zero hashring.Ring
	assert.Equal(t, zero.Len(), r.Len())
	assert.Equal(t, zero.Nodes(), r.Nodes())
	assert.False(t, r.Contains("a"))
	share, ok := r.Share("a")
	assert.False(t, ok)
	assert.Zero(t, share)
	assert.Equal(t, zero.Config(), r.Config())
	assert.Equal(t, zero.Stats(), r.Stats())

	allocs := testing.AllocsPerRun(100, func() { _, _ = r.Lookup("k") })
	assert.Zero(t, allocs)
}
