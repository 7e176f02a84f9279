package txn_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

// TestRunFnErrorIsNoCommitOutcome: Run took an error returned by fn for
// its commit's outcome: one matching ErrAlreadyCommitted (from another
// transaction fn consulted, or an engine adapter reusing txn's errors)
// made Run return success, version 0, for writes it never sent; one
// matching ErrCommitUnknown, with an idempotency key, was retried as a
// lost commit reply. fn's error is returned as is, as Run's doc says.
func TestRunFnErrorIsNoCommitOutcome(t *testing.T) {
	for _, sent := range []error{txn.ErrAlreadyCommitted, txn.ErrCommitUnknown} {
		t.Run(sent.Error(), func(t *testing.T) {
			s := newStore(t, memkv.Config{})
			give := fmt.Errorf("other transaction: %w", sent)
			calls := 0
			v, err := txn.Run(ctx, s, txn.Options{IdempotencyKey: b("id")}, txn.RetryPolicy{},
				func(tx *txn.Tx) error {
					calls++
					if err := tx.Put(b("k"), b("v")); err != nil {
						return err
					}
					return give
				})
			require.Error(t, err)
			assert.True(t, errors.Is(err, give), "fn's error is returned as is: %v", err)
			assert.Zero(t, v)
			assert.Equal(t, 1, calls, "fn's own error is not retried")
			assert.Zero(t, s.ReadVersion(), "nothing committed")
		})
	}
}
