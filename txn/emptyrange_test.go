package txn_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
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

// DeleteRange of an empty or inverted range deletes no key: like an empty
// conflict range, it must not be sent (under Snapshot it would also become a
// read range) nor turn a transaction without writes into one that creates
// an engine version.
func TestEmptyOrInvertedDeleteRangeIsANoOp(t *testing.T) {
	for _, r := range [][2]string{{"b", "a"}, {"a", "a"}} {
		for _, iso := range []txn.Isolation{txn.Serializable, txn.Snapshot, txn.ReadCommitted} {
			s := newStore(t, memkv.Config{})
			seed(t, s, "a", "1", "b", "2")
			before := s.ReadVersion()
			tx := begin(t, s, iso)
			require.NoError(t, tx.DeleteRange(b(r[0]), b(r[1])))
			assert.Zero(t, tx.MemoryUsed(), "range %q %v", r, iso)
			assert.Equal(t, "1", get(t, tx, "a"), "range %q %v", r, iso)
			assert.Empty(t, tx.Request().Clears, "range %q %v", r, iso)
			assert.Empty(t, tx.Request().ReadRanges, "range %q %v", r, iso) // the read of a is a key
			v, err := tx.Commit(ctx)
			require.NoError(t, err)
			assert.Equal(t, before, v, "range %q %v", r, iso)
			assert.Equal(t, before, s.ReadVersion(), "range %q %v: a new version was created", r, iso)
		}
	}
}
