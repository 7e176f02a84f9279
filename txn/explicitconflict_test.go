package txn_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

// Under Snapshot, first committer wins on writes; a write-conflict range is
// a write without data, so it takes part: two transactions that both claim
// the same key with AddWriteConflictKey cannot both commit (the usual way to
// rule out write skew under snapshot isolation), and a claimed range
// written by a concurrent commit makes the claim fail.
func TestSnapshotWriteConflictRangeFirstCommitterWins(t *testing.T) {
	s := newStore(t, memkv.Config{})
	a := begin(t, s, txn.Snapshot)
	c := begin(t, s, txn.Snapshot)
	require.NoError(t, a.AddWriteConflictKey(b("lock")))
	require.NoError(t, a.Put(b("x"), b("1")))
	require.NoError(t, c.AddWriteConflictKey(b("lock")))
	require.NoError(t, c.Put(b("y"), b("1")))
	_, err := a.Commit(ctx)
	require.NoError(t, err)
	_, err = c.Commit(ctx)
	assert.ErrorIs(t, err, txn.ErrConflict, "both claimed lock under Snapshot")

	claim := begin(t, s, txn.Snapshot)
	require.NoError(t, claim.AddWriteConflictRange(b("r/"), b("r0")))
	seed(t, s, "r/k", "1")
	_, err = claim.Commit(ctx)
	assert.ErrorIs(t, err, txn.ErrConflict, "a write committed into the claimed range")

	// A range nobody wrote still commits.
	free := begin(t, s, txn.Snapshot)
	require.NoError(t, free.AddWriteConflictRange(b("q/"), b("q0")))
	seed(t, s, "r/k", "2")
	_, err = free.Commit(ctx)
	assert.NoError(t, err)
}
