package txn_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

// TestRunCancelledInBackoffSaysWhy: a context cancelled while Run waited
// out a backoff made Run return the bare context.Canceled: the failure that
// Run was retrying (a conflict, a transient error) was lost, and the error
// did not match ErrRetriesExhausted, although a backoff cut short by the
// context's deadline returns an error matching ErrRetriesExhausted, the
// context's error and the last attempt's error. Both ways now do.
func TestRunCancelledInBackoffSaysWhy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, cancel := context.WithCancel(ctx)
		defer cancel()
		calls := 0
		_, err := txn.Run(c, newStore(t, memkv.Config{}), txn.Options{}, txn.RetryPolicy{},
			func(*txn.Tx) error {
				calls++
				cancel() // the caller gives up while the attempt fails: Run's backoff ends
				return txn.ErrTransient
			})
		assert.Equal(t, 1, calls)
		require.ErrorIs(t, err, context.Canceled)
		assert.ErrorIs(t, err, txn.ErrRetriesExhausted)
		assert.ErrorIs(t, err, txn.ErrTransient, "the last attempt's error is kept")
	})
}
