package txn_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

// tempErr is an engine's own "applied nothing, try again" error.
type tempErr struct{}

func (tempErr) Error() string   { return "engine busy" }
func (tempErr) Temporary() bool { return true }

// TestJoinedUnknownOutcomeWins: a commit error that joins an engine's
// transient error with a timeout or cancellation (two reports side by side,
// neither vouching for the other) may have been applied: it must be
// ErrCommitUnknown, not ErrTransient, or Run retries a commit that was
// applied, and applies it twice.
func TestJoinedUnknownOutcomeWins(t *testing.T) {
	for name, lost := range map[string]error{
		"join":         errors.Join(tempErr{}, context.DeadlineExceeded),
		"join reverse": errors.Join(context.Canceled, tempErr{}),
		"two %w":       fmt.Errorf("commit: %w (reply: %w)", tempErr{}, context.DeadlineExceeded),
		"nested":       fmt.Errorf("rpc: %w", errors.Join(tempErr{}, fmt.Errorf("wait: %w", context.Canceled))),
	} {
		t.Run(name, func(t *testing.T) {
			st := newStore(t, memkv.Config{})
			eng := lateReplyEngine{Store: st, err: lost}
			calls := 0
			_, err := txn.Run(ctx, eng, txn.Options{}, txn.RetryPolicy{}, func(tx *txn.Tx) error {
				calls++
				return tx.Put(b("k"), b("v"))
			})
			require.ErrorIs(t, err, txn.ErrCommitUnknown)
			assert.False(t, txn.Retryable(err))
			assert.Equal(t, 1, calls, "a commit that may be applied is not run again")
		})
	}
}
