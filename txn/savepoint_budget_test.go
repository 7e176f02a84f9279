package txn_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

// TestSavepointsChargedToBudget: open savepoints count against MemoryBudget
// until released or rolled past, so a transaction opening savepoints it
// never releases is refused (ErrTooLarge) instead of growing without bound,
// while one that opens and releases a savepoint per statement never is.
func TestSavepointsChargedToBudget(t *testing.T) {
	s := newStore(t, memkv.Config{})
	const budget = 1000
	tx, err := txn.Begin(s, txn.Options{MemoryBudget: budget})
	require.NoError(t, err)

	var open []txn.Savepoint
	for {
		sp, err := tx.Savepoint()
		if err != nil {
			require.ErrorIs(t, err, txn.ErrTooLarge)
			break
		}
		open = append(open, sp)
		require.Less(t, len(open), budget, "savepoints are never refused")
	}
	require.NotEmpty(t, open)
	require.LessOrEqual(t, tx.MemoryUsed(), budget)
	held := tx.MemoryUsed()

	// Rolling back to the third closes those nested in it (it stays open).
	require.NoError(t, tx.RollbackTo(open[2]))
	require.Less(t, tx.MemoryUsed(), held)
	atThird := tx.MemoryUsed()
	// Releasing the first closes all three.
	require.NoError(t, tx.Release(open[0]))
	require.Equal(t, 0, tx.MemoryUsed(), "no savepoint open, nothing else held")
	require.Less(t, 0, atThird)

	// A savepoint per statement, each released or rolled back to and
	// released: never refused.
	for i := range 10 * budget {
		sp, err := tx.Savepoint()
		require.NoError(t, err, "statement %d", i)
		if i%2 == 1 {
			require.NoError(t, tx.RollbackTo(sp))
		}
		require.NoError(t, tx.Release(sp))
	}
	require.Equal(t, 0, tx.MemoryUsed())
	tx.Rollback()
}
