package txn_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

// Merging a read set of one point read turned the key into the range
// [key, key+0x00), which takes about twice its bytes: the merge meant to
// make room made the transaction bigger, past its MemoryBudget, while the
// write that triggered it was refused anyway.
func TestReadSetMergeNeverGrowsTheReadSet(t *testing.T) {
	s := newStore(t, memkv.Config{})
	const budget = 1100
	tx, err := txn.Begin(s, txn.Options{MemoryBudget: budget})
	require.NoError(t, err)
	key := bytes.Repeat([]byte("k"), 1000)
	_, _, err = tx.Get(ctx, key)
	require.NoError(t, err)
	before := tx.MemoryUsed()
	require.ErrorIs(t, tx.Put(b("w"), make([]byte, 100)), txn.ErrTooLarge)
	assert.LessOrEqual(t, tx.MemoryUsed(), budget, "the transaction holds more than its budget")
	assert.Equal(t, before, tx.MemoryUsed(), "a refused write changed the memory held")
	assert.Zero(t, tx.ReadSetMerges(), "no merge that saves nothing is made")
	req := tx.Request()
	assert.Len(t, req.ReadKeys, 1, "the read stays a point read")
	assert.Equal(t, 0, len(req.ReadRanges), "no range read")
}
