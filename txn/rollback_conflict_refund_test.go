package txn_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

// TestRollbackToRefundsConflictRanges: the range deletes and
// write-conflict ranges undone by RollbackTo are no longer held (their
// bounds are copies of their own, not bytes of the append-only write
// buffer), and their charge is given back, to MemoryBudget and to the
// Manager's total budget. It stayed until the transaction ended: a
// transaction clearing and marking a range inside a savepoint per
// statement, rolled back each time, was refused with ErrTooLarge while it
// held nothing more than at its first statement, and it kept that charge
// against every other transaction's total budget.
func TestRollbackToRefundsConflictRanges(t *testing.T) {
	s := newStore(t, memkv.Config{})
	const budget = 64 << 10
	m, err := txn.NewManager(s, txn.ManagerConfig{TxBudget: budget})
	require.NoError(t, err)
	id, err := m.Begin(txn.Options{})
	require.NoError(t, err)
	require.NoError(t, m.Put(id, b("a"), b("v")))
	var base int
	require.NoError(t, m.Do(id, func(tx *txn.Tx) error { base = tx.MemoryUsed(); return nil }))
	require.Equal(t, int64(base), m.Stats().MemoryBytes)

	const stmts = 2000 // each charges about 150 bytes: 2000 do not fit 64 KiB
	for i := range stmts {
		err := m.Do(id, func(tx *txn.Tx) error {
			sp, err := tx.Savepoint()
			if err != nil {
				return err
			}
			if err := tx.DeleteRange(b("k"), b("l")); err != nil {
				return err
			}
			if err := tx.AddWriteConflictRange(b("w"), b("x")); err != nil {
				return err
			}
			if err := tx.RollbackTo(sp); err != nil {
				return err
			}
			return tx.Release(sp)
		})
		require.NoError(t, err, "statement %d", i)
	}
	require.NoError(t, m.Do(id, func(tx *txn.Tx) error {
		require.Equal(t, base, tx.MemoryUsed(), "nothing more held than before the statements")
		return nil
	}))
	require.Equal(t, int64(base), m.Stats().MemoryBytes)

	// What a rollback does not undo stays charged: a clear and a
	// write-conflict range made before the savepoint.
	require.NoError(t, m.Do(id, func(tx *txn.Tx) error {
		require.NoError(t, tx.DeleteRange(b("c"), b("d")))
		require.NoError(t, tx.AddWriteConflictKey(b("e")))
		held := tx.MemoryUsed()
		sp, err := tx.Savepoint()
		require.NoError(t, err)
		require.NoError(t, tx.DeleteRange(b("k"), b("l")))
		require.NoError(t, tx.RollbackTo(sp))
		require.NoError(t, tx.Release(sp))
		require.Equal(t, held, tx.MemoryUsed())
		return nil
	}))
	_, err = m.Commit(ctx, id)
	require.NoError(t, err)
	require.Zero(t, m.Stats().MemoryBytes)
	_, ok, err := s.Get(ctx, s.ReadVersion(), b("a"))
	require.NoError(t, err)
	require.True(t, ok, "the write before the statements committed")
}
