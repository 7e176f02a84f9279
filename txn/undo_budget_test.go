package txn_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

// TestUndoRecordsRefunded: the undo record an overwrite keeps while a
// savepoint is open is charged to MemoryBudget, and refunded when the
// savepoint is rolled back to or the last one released drops it. Its
// charge stayed: a transaction updating a key inside a savepoint per
// statement was charged an entry's overhead per statement on top of the
// value, and refused with ErrTooLarge long before its buffer held its
// budget. The undo records of a range delete are charged as an
// overwrite's are.
func TestUndoRecordsRefunded(t *testing.T) {
	s := newStore(t, memkv.Config{})
	const budget = 64 << 10
	tx, err := txn.Begin(s, txn.Options{MemoryBudget: budget})
	require.NoError(t, err)
	k := b("k")
	require.NoError(t, tx.Put(k, b("v")))
	base := tx.MemoryUsed()
	const stmts = 2000 // 2000 one-byte values fit; 2000 undo records do not
	for i := range stmts {
		sp, err := tx.Savepoint()
		require.NoError(t, err)
		require.NoError(t, tx.Put(k, b("v")), "statement %d", i)
		if i%2 == 1 {
			require.NoError(t, tx.RollbackTo(sp))
		}
		require.NoError(t, tx.Release(sp))
	}
	require.Equal(t, base+stmts, tx.MemoryUsed(), "the values only")

	// A range delete keeps an undo record per write it deletes.
	for i := range 10 {
		require.NoError(t, tx.Put(b(fmt.Sprint("r", i)), b("v")))
	}
	held := tx.MemoryUsed()
	sp, err := tx.Savepoint()
	require.NoError(t, err)
	require.NoError(t, tx.DeleteRange(b("r"), b("s")))
	const overhead = 48 // entryOverhead
	require.Equal(t, held+overhead+(2+overhead)+10*overhead, tx.MemoryUsed(),
		"the savepoint, the clear, and an undo record per deleted write")
	require.NoError(t, tx.RollbackTo(sp))
	require.NoError(t, tx.Release(sp))
	require.Equal(t, held, tx.MemoryUsed(), "the undone clear is refunded too")
	tx.Rollback()
}
