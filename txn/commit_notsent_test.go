package txn_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

// commitCounter counts the commits that reach the engine.
type commitCounter struct {
	*memkv.Store
	commits atomic.Int64
}

func (e *commitCounter) Commit(ctx context.Context, req *txn.CommitRequest) (uint64, error) {
	e.commits.Add(1)
	return e.Store.Commit(ctx, req)
}

// TestCommitEndedContextSaysNotSent: Commit with a context that had already
// ended returned the bare context error, the same text a commit cut short
// in the engine gives (that one also matches ErrCommitUnknown, but the text
// says neither): nothing said that the commit was never sent. It must say
// so and still match the context's error, from Commit and from Run, and the
// transaction stays active, so that a Commit with a live context sends it.
func TestCommitEndedContextSaysNotSent(t *testing.T) {
	eng := &commitCounter{Store: newStore(t, memkv.Config{})}
	ended, cancel := context.WithCancel(ctx)
	cancel()

	tx, err := txn.Begin(eng, txn.Options{})
	require.NoError(t, err)
	require.NoError(t, tx.Put(b("k"), b("v")))
	_, err = tx.Commit(ended)
	require.ErrorIs(t, err, context.Canceled)
	assert.NotErrorIs(t, err, txn.ErrCommitUnknown)
	assert.True(t, strings.Contains(err.Error(), "not sent"), "Commit: %q", err)
	assert.Zero(t, eng.commits.Load())
	_, err = tx.Commit(ctx)
	require.NoError(t, err, "the transaction stays active")
	assert.Equal(t, int64(1), eng.commits.Load())

	_, err = txn.Run(ended, eng, txn.Options{}, txn.RetryPolicy{}, func(tx *txn.Tx) error {
		return tx.Put(b("k"), b("w"))
	})
	require.ErrorIs(t, err, context.Canceled)
	assert.NotErrorIs(t, err, txn.ErrCommitUnknown)
	assert.True(t, strings.Contains(err.Error(), "not sent"), "Run: %q", err)
	assert.Equal(t, int64(1), eng.commits.Load())
}
