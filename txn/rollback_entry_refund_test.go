package txn_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

// TestRollbackToRefundsUndoneEntries: a write of a new key undone by
// RollbackTo leaves the write buffer's entries and index (the next new key
// takes its place), so its entry's overhead is refunded; its key and value
// stay in the append-only chunks and stay charged. The overhead stayed: a
// transaction trying a write of a new key inside a savepoint per statement,
// rolled back each time, was charged an entry per statement on top of the
// bytes its buffer kept, and was refused with ErrTooLarge long before it
// held its budget.
func TestRollbackToRefundsUndoneEntries(t *testing.T) {
	s := newStore(t, memkv.Config{})
	const budget = 64 << 10
	tx, err := txn.Begin(s, txn.Options{MemoryBudget: budget})
	require.NoError(t, err)
	require.NoError(t, tx.Put(b("a"), b("v")))
	base := tx.MemoryUsed()
	const stmts = 4000 // 4000 keys of 4 bytes fit 64 KiB; 4000 entries do not
	for i := range stmts {
		sp, err := tx.Savepoint()
		require.NoError(t, err)
		require.NoError(t, tx.Put(b(fmt.Sprintf("%04d", i)), nil), "statement %d", i)
		require.NoError(t, tx.RollbackTo(sp))
		require.NoError(t, tx.Release(sp))
	}
	require.Equal(t, base+4*stmts, tx.MemoryUsed(), "the keys the buffer keeps, no entry")

	// A new key written and then deleted inside the savepoint: one entry,
	// refunded once, and the undo record of the delete refunded too.
	sp, err := tx.Savepoint()
	require.NoError(t, err)
	held := tx.MemoryUsed()
	require.NoError(t, tx.Put(b("n"), b("w")))
	require.NoError(t, tx.Delete(b("n")))
	require.NoError(t, tx.RollbackTo(sp))
	require.Equal(t, held+len("n")+len("w"), tx.MemoryUsed())
	require.NoError(t, tx.Release(sp))
	_, err = tx.Commit(ctx)
	require.NoError(t, err)
	_, ok, err := s.Get(ctx, s.ReadVersion(), b("0001"))
	require.NoError(t, err)
	require.False(t, ok, "the undone writes are not committed")
}
