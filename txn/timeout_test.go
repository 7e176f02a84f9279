package txn_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

// lateReplyEngine applies a commit and then loses the reply to a timeout,
// as a network engine does when its read deadline passes after the request
// went out.
type lateReplyEngine struct {
	*memkv.Store
	err error
}

func (e lateReplyEngine) Commit(ctx context.Context, req *txn.CommitRequest) (uint64, error) {
	if _, err := e.Store.Commit(ctx, req); err != nil {
		return 0, err
	}
	return 0, e.err
}

// TestCommitTimeoutIsUnknown: a timeout's error also reports Temporary()
// (context.DeadlineExceeded, os.ErrDeadlineExceeded, net timeouts), which
// the package read as "not applied, retry is safe"; Run then retried a
// commit that had been applied, and applied it twice.
func TestCommitTimeoutIsUnknown(t *testing.T) {
	for name, timeout := range map[string]error{
		"context deadline": fmt.Errorf("commit: %w", context.DeadlineExceeded),
		"i/o deadline":     fmt.Errorf("read reply: %w", os.ErrDeadlineExceeded),
	} {
		t.Run(name, func(t *testing.T) { requireAppliedOnceUnknown(t, timeout) })
	}
}

// TestContextEndingBeforeApplyIsTransient: memkv says a commit whose
// context ended before it applied anything (here during an injected delay)
// was not applied, so that stays safe to retry, while the context's error
// stays in the chain.
func TestContextEndingBeforeApplyIsTransient(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStore(t, memkv.Config{Faults: memkv.Faults{Delay: time.Second}})
		tx, err := txn.Begin(s, txn.Options{})
		require.NoError(t, err)
		require.NoError(t, tx.Put(b("k"), b("v")))
		c, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
		defer cancel()
		_, err = tx.Commit(c)
		assert.ErrorIs(t, err, txn.ErrTransient)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.NotErrorIs(t, err, txn.ErrCommitUnknown)
		_, found, _ := s.Get(ctx, s.ReadVersion(), b("k"))
		assert.False(t, found)
	})
}

// TestCommitCanceledInFlightIsUnknown: a caller that cancels its context
// while the commit is in flight leaves the outcome as unknown as a timeout
// does (the request may have been applied before the wait for its reply
// ended). A bare context.Canceled from the engine read as an ordinary
// failure: Run returned it without ErrCommitUnknown, and a Manager counted
// the transaction failed although it committed.
func TestCommitCanceledInFlightIsUnknown(t *testing.T) {
	eng := lateReplyEngine{Store: newStore(t, memkv.Config{}), err: fmt.Errorf("commit: %w", context.Canceled)}
	_, err := txn.Run(ctx, eng, txn.Options{}, txn.RetryPolicy{}, func(tx *txn.Tx) error {
		return tx.Put(b("k"), b("v"))
	})
	require.ErrorIs(t, err, txn.ErrCommitUnknown)
	assert.ErrorIs(t, err, context.Canceled, "the engine's error stays in the chain")
	assert.False(t, txn.Retryable(err))

	m, err := txn.NewManager(eng, txn.ManagerConfig{})
	require.NoError(t, err)
	id, err := m.Begin(txn.Options{})
	require.NoError(t, err)
	require.NoError(t, m.Put(id, b("k"), b("w")))
	_, err = m.Commit(ctx, id)
	require.ErrorIs(t, err, txn.ErrCommitUnknown)
	st := m.Stats()
	assert.Equal(t, uint64(1), st.Unknown)
	assert.Zero(t, st.Failed)
}

// requireAppliedOnceUnknown runs one read-modify-write through Run on an
// engine that applies the commit and then reports lost: the outcome must be
// ErrCommitUnknown with lost in its chain, not Retryable, and the
// transaction must have run (and been applied) exactly once.
func requireAppliedOnceUnknown(t *testing.T, lost error) {
	t.Helper()
	eng := lateReplyEngine{Store: newStore(t, memkv.Config{}), err: lost}
	calls := 0
	_, err := txn.Run(ctx, eng, txn.Options{}, txn.RetryPolicy{}, func(tx *txn.Tx) error {
		calls++
		v, _, err := tx.Get(ctx, b("n"))
		if err != nil {
			return err
		}
		return tx.Put(b("n"), append(v, 'x'))
	})
	require.ErrorIs(t, err, txn.ErrCommitUnknown)
	assert.ErrorIs(t, err, lost, "the engine's error stays in the chain")
	assert.False(t, txn.Retryable(err))
	assert.Equal(t, 1, calls, "a commit that may be applied is not run again")
	got, _, _ := eng.Get(ctx, eng.ReadVersion(), b("n"))
	assert.Equal(t, "x", string(got), "applied once")
}
