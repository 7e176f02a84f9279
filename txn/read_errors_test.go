package txn_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

// failingReads is an engine whose reads fail with err; its commits go to
// the store.
type failingReads struct {
	*memkv.Store
	err error
}

func (e failingReads) Get(context.Context, uint64, []byte) ([]byte, bool, error) {
	return nil, false, e.err
}

func (e failingReads) Scan(_ context.Context, _ uint64, _, _ []byte, _ int, _ bool, dst [][]byte) ([][]byte, error) {
	return dst, e.err
}

// statusError is an adapter's one error type for every call, reads and
// commits alike, whose behaviour methods report its status code (as a
// client library's status errors do).
type statusError struct{ code string }

func (e statusError) Error() string          { return "engine: " + e.code }
func (e statusError) CommitUnknown() bool    { return e.code == "reply lost" }
func (e statusError) AlreadyCommitted() bool { return e.code == "duplicate" }

// TestReadErrorIsNoCommitOutcome: a read's error was classified as a
// commit's, so an engine error reporting AlreadyCommitted from a Get made
// Run return success (version 0) for a transaction whose writes were
// never sent, and one reporting CommitUnknown made Run say a commit's
// outcome was unknown although none was attempted.
func TestReadErrorIsNoCommitOutcome(t *testing.T) {
	for _, code := range []string{"duplicate", "reply lost"} {
		t.Run(code, func(t *testing.T) {
			eng := failingReads{Store: newStore(t, memkv.Config{}), err: statusError{code}}
			v, err := txn.Run(ctx, eng, txn.Options{}, txn.RetryPolicy{MaxAttempts: 1},
				func(tx *txn.Tx) error {
					if _, _, err := tx.Get(ctx, b("k")); err != nil {
						return err
					}
					return tx.Put(b("k"), b("v"))
				})
			require.Error(t, err, "nothing was committed")
			assert.Zero(t, v)
			assert.NotErrorIs(t, err, txn.ErrAlreadyCommitted)
			assert.NotErrorIs(t, err, txn.ErrCommitUnknown)
			assert.ErrorIs(t, err, statusError{code}, "the engine's error stays in the chain")
			assert.Zero(t, eng.ReadVersion(), "no commit reached the store")

			tx := begin(t, eng, 0)
			_, err = tx.GetRange(ctx, b("a"), b("z"), 0, false)
			assert.NotErrorIs(t, err, txn.ErrAlreadyCommitted)
			assert.NotErrorIs(t, err, txn.ErrCommitUnknown)
		})
	}
}

// TestReadErrorSaysRead: a read's error said "transient commit failure"
// (ErrTransient's text) although no commit was made. It now says a read
// failed, and still matches its class and the engine's error.
func TestReadErrorSaysRead(t *testing.T) {
	for name, give := range map[string]error{
		"timeout":   fmt.Errorf("get: %w", os.ErrDeadlineExceeded),
		"too old":   memkv.ErrTooOld,
		"unmatched": errors.New("engine: broken"),
	} {
		t.Run(name, func(t *testing.T) {
			eng := failingReads{Store: newStore(t, memkv.Config{}), err: give}
			tx := begin(t, eng, 0)
			_, _, err := tx.Get(ctx, b("k"))
			require.ErrorIs(t, err, give)
			assert.Contains(t, err.Error(), "read")
			assert.NotContains(t, err.Error(), "commit")

			tx = begin(t, eng, 0)
			_, err = tx.GetRange(ctx, b("a"), nil, 3, true)
			require.ErrorIs(t, err, give)
			assert.Contains(t, err.Error(), "read")
			assert.NotContains(t, err.Error(), "commit")
		})
	}
	tx := begin(t, failingReads{Store: newStore(t, memkv.Config{}), err: os.ErrDeadlineExceeded}, 0)
	_, _, err := tx.Get(ctx, b("k"))
	assert.ErrorIs(t, err, txn.ErrTransient, "a read that timed out is safe to retry")
	assert.True(t, txn.Retryable(err))
	tx = begin(t, failingReads{Store: newStore(t, memkv.Config{}), err: memkv.ErrTooOld}, 0)
	_, _, err = tx.Get(ctx, b("k"))
	assert.ErrorIs(t, err, txn.ErrTooOld)
}
