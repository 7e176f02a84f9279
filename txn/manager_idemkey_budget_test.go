package txn_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

// TestManagerChargesIdempotencyKey: Begin keeps a copy of the idempotency
// key until the transaction ends, but charged it to no budget, so clients
// that began transactions with long keys and abandoned them held far more
// than TotalBudget (here 64 transactions of 64 KiB each under a 256 KiB
// budget, with MemoryBytes 0), and a key longer than the transaction's own
// budget was accepted.
func TestManagerChargesIdempotencyKey(t *testing.T) {
	s := newStore(t, memkv.Config{})
	const budget = 256 << 10
	m, err := txn.NewManager(s, txn.ManagerConfig{TotalBudget: budget, TxBudget: 128 << 10})
	require.NoError(t, err)
	key := bytes.Repeat([]byte{'k'}, 64<<10)
	var ids []txn.ID
	for range 64 {
		id, err := m.Begin(txn.Options{IdempotencyKey: key})
		if err != nil {
			require.ErrorIs(t, err, txn.ErrOverloaded)
			break
		}
		ids = append(ids, id)
	}
	held := int64(len(ids)) * int64(len(key))
	assert.LessOrEqual(t, held, int64(budget)+int64(len(key)), "idempotency keys held past TotalBudget")
	assert.Equal(t, held, m.Stats().MemoryBytes, "the keys held are accounted")

	_, err = m.Begin(txn.Options{IdempotencyKey: bytes.Repeat([]byte{'k'}, 200<<10)})
	require.ErrorIs(t, err, txn.ErrTooLarge, "a key longer than the transaction's budget")

	for _, id := range ids {
		require.NoError(t, m.Rollback(id))
	}
	assert.Zero(t, m.Stats().MemoryBytes, "rollback gives the keys' bytes back")
}
