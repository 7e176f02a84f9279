package txn_test

import (
	"context"
	"os"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

// ctxTimeoutEngine's reads wait for their context to end and then fail as a
// network client's do when it maps the context onto its connection's
// deadline: with os.ErrDeadlineExceeded (a Temporary timeout, so
// ErrTransient), not the context's error.
type ctxTimeoutEngine struct{ *memkv.Store }

func (ctxTimeoutEngine) Get(ctx context.Context, _ uint64, _ []byte) ([]byte, bool, error) {
	<-ctx.Done()
	return nil, false, os.ErrDeadlineExceeded
}

// TestRunGivingUpAfterTheContextEndedSaysSo: when the caller's context ended
// during the last attempt allowed (MaxAttempts reached, or MaxElapsed
// passed), Run returned "retries exhausted" with the engine's error only,
// which does not match context.DeadlineExceeded (or Canceled): the caller
// could not tell its own deadline from retries running out, although the
// same failure with a backoff left does match it. Found by a review.
func TestRunGivingUpAfterTheContextEndedSaysSo(t *testing.T) {
	const d = 50 * time.Millisecond
	for _, tt := range []struct {
		name string
		pol  txn.RetryPolicy
		ctx  func() (context.Context, context.CancelFunc)
		want error
	}{
		{"last attempt, deadline", txn.RetryPolicy{MaxAttempts: 1},
			func() (context.Context, context.CancelFunc) { return context.WithTimeout(ctx, d) }, context.DeadlineExceeded},
		{"MaxElapsed, deadline", txn.RetryPolicy{MaxElapsed: d},
			func() (context.Context, context.CancelFunc) { return context.WithTimeout(ctx, d) }, context.DeadlineExceeded},
		{"backoff past the deadline", txn.RetryPolicy{},
			func() (context.Context, context.CancelFunc) { return context.WithTimeout(ctx, d) }, context.DeadlineExceeded},
		{"last attempt, cancelled", txn.RetryPolicy{MaxAttempts: 1}, func() (context.Context, context.CancelFunc) {
			c, cancel := context.WithCancel(ctx)
			time.AfterFunc(d, cancel)
			return c, cancel
		}, context.Canceled},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				eng := ctxTimeoutEngine{newStore(t, memkv.Config{})}
				c, cancel := tt.ctx()
				defer cancel()
				_, err := txn.Run(c, eng, txn.Options{}, tt.pol, func(tx *txn.Tx) error {
					_, _, err := tx.Get(c, b("k"))
					return err
				})
				require.ErrorIs(t, err, txn.ErrRetriesExhausted)
				assert.ErrorIs(t, err, tt.want, "the context's end is in the error")
				assert.ErrorIs(t, err, os.ErrDeadlineExceeded, "and so is the last attempt's error")
			})
		})
	}

	// Retries running out while the context is live do not claim it ended.
	synctest.Test(t, func(t *testing.T) {
		c, cancel := context.WithTimeout(ctx, time.Hour)
		defer cancel()
		_, err := txn.Run(c, newStore(t, memkv.Config{}), txn.Options{}, txn.RetryPolicy{MaxAttempts: 2},
			func(*txn.Tx) error { return txn.ErrTransient })
		require.ErrorIs(t, err, txn.ErrRetriesExhausted)
		assert.NotErrorIs(t, err, context.DeadlineExceeded)
	})
}
