package txn_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
)

// An empty or inverted explicit conflict range covers no key: it is not
// sent, and a transaction that added only such ranges is read-only (it
// commits at its read version and creates no engine version).
func TestEmptyOrInvertedConflictRangesAreNoOps(t *testing.T) {
	for _, r := range [][2]string{{"b", "a"}, {"a", "a"}} {
		s := newStore(t, memkv.Config{})
		seed(t, s, "k", "1")
		before := s.ReadVersion()
		tx := begin(t, s, 0)
		require.NoError(t, tx.AddWriteConflictRange(b(r[0]), b(r[1])))
		require.NoError(t, tx.AddReadConflictRange(b(r[0]), b(r[1])))
		assert.Empty(t, tx.Request().WriteRanges, "range %q", r)
		assert.Empty(t, tx.Request().ReadRanges, "range %q", r)
		assert.Zero(t, tx.MemoryUsed(), "range %q", r)
		v, err := tx.Commit(ctx)
		require.NoError(t, err)
		assert.Equal(t, before, v, "range %q", r)
		assert.Equal(t, before, s.ReadVersion(), "range %q: a new version was created", r)
	}
}
