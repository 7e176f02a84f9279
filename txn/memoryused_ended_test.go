package txn_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

// TestMemoryUsedZeroOnceEnded: MemoryUsed, documented as the bytes accounted
// against the memory budgets, kept the transaction's last figure after it
// committed, rolled back or failed, when it held nothing any more (its
// buffers were released and a Manager's account given the bytes back): a
// caller summing it over its transactions counted ended ones. It is 0 once
// the transaction has ended.
func TestMemoryUsedZeroOnceEnded(t *testing.T) {
	ctx := context.Background()
	s := newStore(t, memkv.Config{})
	for _, tc := range []struct {
		name string
		end  func(t *testing.T, tx *txn.Tx)
	}{
		{"commit", func(t *testing.T, tx *txn.Tx) {
			_, err := tx.Commit(ctx)
			require.NoError(t, err)
		}},
		{"rollback", func(_ *testing.T, tx *txn.Tx) { tx.Rollback() }},
		{"conflict", func(t *testing.T, tx *txn.Tx) {
			other, err := txn.Begin(s, txn.Options{})
			require.NoError(t, err)
			require.NoError(t, other.Put(b("r"), b("x")))
			_, err = other.Commit(ctx)
			require.NoError(t, err)
			_, err = tx.Commit(ctx)
			require.ErrorIs(t, err, txn.ErrConflict)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tx, err := txn.Begin(s, txn.Options{IdempotencyKey: b("idem-" + tc.name)})
			require.NoError(t, err)
			_, _, err = tx.Get(ctx, b("r"))
			require.NoError(t, err)
			require.NoError(t, tx.Put(b("w"), b("value")))
			require.Positive(t, tx.MemoryUsed())
			tc.end(t, tx)
			assert.Zero(t, tx.MemoryUsed(), "an ended transaction holds nothing")
		})
	}
}
