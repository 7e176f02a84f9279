package txn_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

// TestRefusedReadConflictLeavesTx: AddReadConflictKey and
// AddReadConflictRange refused with ErrTooLarge leave the transaction as it
// was, as a refused Put or Delete does: they set the flag that sends a
// read-only Serializable commit to the engine before charging the budget,
// so such a transaction, which commits from its snapshot, then failed with a
// conflict on a key it had read and another client rewrote. Found by a
// review.
func TestRefusedReadConflictLeavesTx(t *testing.T) {
	for name, add := range map[string]func(tx *txn.Tx) error{
		"key":   func(tx *txn.Tx) error { return tx.AddReadConflictKey(bytes.Repeat(b("x"), 4096)) },
		"range": func(tx *txn.Tx) error { return tx.AddReadConflictRange(b("a"), bytes.Repeat(b("z"), 4096)) },
	} {
		t.Run(name, func(t *testing.T) {
			s := newStore(t, memkv.Config{})
			seed(t, s, "k", "1")
			tx, err := txn.Begin(s, txn.Options{MemoryBudget: 512})
			require.NoError(t, err)
			assert.Equal(t, "1", get(t, tx, "k"))
			require.ErrorIs(t, add(tx), txn.ErrTooLarge)
			seed(t, s, "k", "2") // another client's write of the key read
			_, err = tx.Commit(ctx)
			assert.NoError(t, err, "a read-only transaction commits from its snapshot")
		})
	}
}
