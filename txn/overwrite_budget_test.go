package txn_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

// TestOverwriteChargesWhatItAdds: writing a key the transaction already
// buffers adds its new value to the buffer, not the key nor an entry (and,
// while a savepoint is open, an undo record), and MemoryBudget charges
// what it adds. Every overwrite and delete was charged the key and an
// entry again: a transaction updating one long key was refused with
// ErrTooLarge after a few writes while it held a fraction of its budget.
func TestOverwriteChargesWhatItAdds(t *testing.T) {
	s := newStore(t, memkv.Config{})
	tx, err := txn.Begin(s, txn.Options{MemoryBudget: 4096})
	require.NoError(t, err)
	key := bytes.Repeat([]byte("k"), 1000)
	require.NoError(t, tx.Put(key, []byte("v")))
	first := tx.MemoryUsed()
	for i := range 50 {
		require.NoError(t, tx.Delete(key), "delete %d", i)
		require.NoError(t, tx.Put(key, []byte("v")), "overwrite %d", i)
	}
	require.Equal(t, first+50, tx.MemoryUsed(), "50 one-byte values added, nothing else")

	sp, err := tx.Savepoint()
	require.NoError(t, err)
	held := tx.MemoryUsed()
	require.NoError(t, tx.Put(key, []byte("w")))
	require.NoError(t, tx.Delete(key))
	require.Less(t, tx.MemoryUsed()-held, 2*len(key), "an undo record each, not the key")
	require.NoError(t, tx.RollbackTo(sp))
	_, err = tx.Commit(ctx)
	require.NoError(t, err)
	v, ok, err := s.Get(ctx, s.ReadVersion(), key)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "v", string(v))
}
