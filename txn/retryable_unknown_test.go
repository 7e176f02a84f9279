package txn_test

import (
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

// TestRetryableIsFalseOnceAnOutcomeIsUnknown: the first attempt is applied
// and its reply lost; the retry under the idempotency key fails before the
// engine looks the key up (an injected transient failure), and the attempts
// run out. Run's error says an earlier attempt may have committed, yet
// Retryable reported it safe to retry the whole transaction, since it also
// wraps the last attempt's ErrTransient: a caller that runs the
// transaction again (under a new key, as a new request) applied it twice.
func TestRetryableIsFalseOnceAnOutcomeIsUnknown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		commits := 0
		s := newStore(t, memkv.Config{Faults: memkv.Faults{
			DropReply:        func(*memkv.CommitRequest) bool { return true },
			FailBeforeCommit: func(*memkv.CommitRequest) bool { commits++; return commits > 1 },
		}})
		_, err := txn.Run(ctx, s, txn.Options{IdempotencyKey: b("req-1")}, txn.RetryPolicy{MaxAttempts: 2},
			func(tx *txn.Tx) error { return tx.Put(b("k"), b("v")) })
		require.ErrorIs(t, err, txn.ErrCommitUnknown)
		require.ErrorIs(t, err, txn.ErrTransient, "the last attempt's error is kept")
		got, _, _ := s.Get(ctx, s.ReadVersion(), b("k"))
		require.Equal(t, "v", string(got), "the first attempt was applied")
		assert.False(t, txn.Retryable(err), "an outcome that may be applied is not safe to retry")
	})
}
