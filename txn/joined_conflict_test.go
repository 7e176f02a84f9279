package txn_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

// unknownErr is an engine's own "I cannot tell whether it was applied".
type unknownErr struct{}

func (unknownErr) Error() string       { return "reply lost" }
func (unknownErr) CommitUnknown() bool { return true }

// TestJoinedConflictLosesToUnknownOutcome: a commit error that joins an
// engine's conflict with a timeout, a cancellation or an error of unknown
// outcome (reports side by side, none vouching for the others) may have
// been applied. It was a *ConflictError, since the conflict was looked for
// before anything else: Retryable, so Run ran the transaction again and
// applied it twice. An unknown outcome wins over a conflict as it does
// over a transient error.
func TestJoinedConflictLosesToUnknownOutcome(t *testing.T) {
	conflict := &memkv.ConflictError{Keys: [][]byte{[]byte("k")}}
	for name, lost := range map[string]error{
		"join":          errors.Join(conflict, context.DeadlineExceeded),
		"join reverse":  errors.Join(context.Canceled, conflict),
		"two %w":        fmt.Errorf("commit: %w (reply: %w)", conflict, context.DeadlineExceeded),
		"nested":        fmt.Errorf("rpc: %w", errors.Join(conflict, fmt.Errorf("wait: %w", context.Canceled))),
		"commitunknown": errors.Join(conflict, unknownErr{}),
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { requireAppliedOnceUnknown(t, lost) })
		})
	}

	// A conflict error of the engine's own that wraps a timeout classifies
	// itself, as a Temporary one does: the engine vouches for it.
	t.Run("conflict wrapping a timeout", func(t *testing.T) {
		err := classifyOnce(t, &wrappingConflict{err: context.DeadlineExceeded})
		assert.ErrorIs(t, err, txn.ErrConflict)
		assert.NotErrorIs(t, err, txn.ErrCommitUnknown)
	})
}

// wrappingConflict is an engine conflict error wrapping the wait's error.
type wrappingConflict struct{ err error }

func (e *wrappingConflict) Error() string            { return "conflict: " + e.err.Error() }
func (e *wrappingConflict) Unwrap() error            { return e.err }
func (e *wrappingConflict) ConflictKeys() [][]byte   { return [][]byte{[]byte("k")} }
func (e *wrappingConflict) ConflictRanges() [][]byte { return nil }

// failingEngine answers every commit with err, applying nothing.
type failingEngine struct {
	*memkv.Store
	err error
}

func (e failingEngine) Commit(context.Context, *txn.CommitRequest) (uint64, error) { return 0, e.err }

// classifyOnce commits one write against an engine that answers err and
// returns the transaction's error.
func classifyOnce(t *testing.T, err error) error {
	t.Helper()
	tx, berr := txn.Begin(failingEngine{Store: newStore(t, memkv.Config{}), err: err}, txn.Options{})
	require.NoError(t, berr)
	require.NoError(t, tx.Put(b("k"), b("v")))
	_, cerr := tx.Commit(ctx)
	return cerr
}
