package txn_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

// A write past the write buffer's limits (lowered here: the real ones are
// 2 GiB keys and values and 2^31 keys, where the buffer's 32-bit lengths
// and indices would wrap) was stored with its length silently truncated.
// It is refused with ErrTooLarge and the sizes, and leaves the transaction
// as it was and usable.
func TestWriteLimits(t *testing.T) {
	tests := []struct {
		name                       string
		key, value, writes, chunks int // the limits; 0 keeps the real one
		op                         func(tx *txn.Tx) error
		wantErr                    string
	}{
		{name: "key over MaxKeySize", key: 4,
			op:      func(tx *txn.Tx) error { return tx.Put(b("abcde"), b("v")) },
			wantErr: "txn: transaction too large: key of 5 bytes, over the limit of 4"},
		{name: "deleted key over MaxKeySize", key: 4,
			op:      func(tx *txn.Tx) error { return tx.Delete(b("abcde")) },
			wantErr: "txn: transaction too large: key of 5 bytes, over the limit of 4"},
		{name: "value over MaxValueSize", value: 8,
			op:      func(tx *txn.Tx) error { return tx.Put(b("c"), b("123456789")) },
			wantErr: "txn: transaction too large: value of 9 bytes, over the limit of 8"},
		{name: "new key past MaxWrites", writes: 2,
			op:      func(tx *txn.Tx) error { return tx.Put(b("c"), b("3")) },
			wantErr: "txn: transaction too large: a new key past the limit of 2 written keys"},
		{name: "new deletion past MaxWrites", writes: 2,
			op:      func(tx *txn.Tx) error { return tx.Delete(b("c")) },
			wantErr: "txn: transaction too large: a new key past the limit of 2 written keys"},
		{name: "new chunk past the chunk limit", chunks: 1,
			// Larger than any chunk a pooled buffer keeps (64 KiB).
			op:      func(tx *txn.Tx) error { return tx.Put(b("c"), make([]byte, 70_000)) },
			wantErr: "txn: transaction too large: the write buffer holds its limit of 1 chunks"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			txn.SetWriteLimits(t, tt.key, tt.value, tt.writes, tt.chunks)
			s := newStore(t, memkv.Config{})
			tx := begin(t, s, txn.Serializable)
			require.NoError(t, tx.Put(b("a"), b("1")))
			require.NoError(t, tx.Delete(b("b")))
			before := describe(tx)

			err := tt.op(tx)
			require.ErrorIs(t, err, txn.ErrTooLarge)
			assert.EqualError(t, err, tt.wantErr)
			assert.Equal(t, before, describe(tx), "the refused write changed the transaction")

			// Still usable: a key it holds takes a small write at every limit.
			require.NoError(t, tx.Put(b("a"), b("2")))
			require.NoError(t, tx.Delete(b("a")))
			require.NoError(t, tx.Put(b("b"), b("3")))
			_, err = tx.Commit(ctx)
			require.NoError(t, err)
			after := begin(t, s, txn.Serializable)
			kvs, err := after.GetRange(ctx, nil, nil, 0, false)
			require.NoError(t, err)
			assert.Equal(t, []string{"b=3"}, keysOf(kvs))
		})
	}
}

// describe returns the transaction's memory and buffered writes.
func describe(tx *txn.Tx) string {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "mem %d;", tx.MemoryUsed())
	sets := tx.Request().Sets
	for i := 0; i+1 < len(sets); i += 2 {
		fmt.Fprintf(&buf, " %q=%q(nil %v)", sets[i], sets[i+1], sets[i+1] == nil)
	}
	return buf.String()
}

// The write buffer's limits are checked before the memory budget: a write
// past them gets their error even when the budget would refuse it too, and
// the budget does not merge the read set for it first.
func TestWriteLimitsBeforeBudget(t *testing.T) {
	txn.SetWriteLimits(t, 4, 0, 0, 0)
	s := newStore(t, memkv.Config{})
	tx, err := txn.Begin(s, txn.Options{MemoryBudget: 200})
	require.NoError(t, err)
	for _, k := range []string{"r1", "r2"} {
		_, _, err := tx.Get(ctx, b(k))
		require.NoError(t, err)
	}
	before := tx.MemoryUsed()

	err = tx.Put(b("abcde"), make([]byte, 300))
	require.ErrorIs(t, err, txn.ErrTooLarge)
	assert.EqualError(t, err, "txn: transaction too large: key of 5 bytes, over the limit of 4")
	assert.Zero(t, tx.ReadSetMerges(), "the read set merged for a write the limits refuse")
	assert.Equal(t, before, tx.MemoryUsed())
}
