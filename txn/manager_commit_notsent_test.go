package txn_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

// TestManagerCommitNotSentKeepsTheTransaction: Manager.Commit with a
// context that had ended does not send the commit, and the manager keeps the
// transaction (its doc said it forgets the id after Commit, so a client
// believing it would leave the transaction and its memory to the reaper).
func TestManagerCommitNotSentKeepsTheTransaction(t *testing.T) {
	s := newStore(t, memkv.Config{})
	m, err := txn.NewManager(s, txn.ManagerConfig{})
	require.NoError(t, err)
	id, err := m.Begin(txn.Options{})
	require.NoError(t, err)
	require.NoError(t, m.Put(id, b("k"), b("v")))
	done, cancel := context.WithCancel(ctx)
	cancel()
	_, err = m.Commit(done, id)
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, 1, m.Len(), "the id is still held")
	assert.Positive(t, m.Stats().MemoryBytes, "and so is its memory")
	v, err := m.Commit(ctx, id)
	require.NoError(t, err, "a later Commit sends it")
	assert.Equal(t, v, s.ReadVersion())
	assert.Equal(t, 0, m.Len())
	assert.Zero(t, m.Stats().MemoryBytes)
}
