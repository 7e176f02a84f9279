package txn_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

// TestCommitErrorWrappingSeveralIsClassified: an engine error that wraps
// more than one error (errors.Join, or fmt.Errorf with several %w) was
// classified by following errors.Unwrap only, which returns nil for such
// an error: a commit timeout joined with the connection's error came back
// as is, neither ErrCommitUnknown nor retryable, so Run told its caller
// nothing of a commit that had been applied; a too-old answer wrapped the
// same way was not retried.
func TestCommitErrorWrappingSeveralIsClassified(t *testing.T) {
	for name, lost := range map[string]error{
		"join":      errors.Join(context.DeadlineExceeded, io.ErrUnexpectedEOF),
		"two %w":    fmt.Errorf("commit: %w (closing: %w)", context.Canceled, io.ErrClosedPipe),
		"in a join": errors.Join(io.EOF, fmt.Errorf("reply: %w", context.DeadlineExceeded)),
	} {
		t.Run(name, func(t *testing.T) {
			eng := lateReplyEngine{Store: newStore(t, memkv.Config{}), err: lost}
			_, err := txn.Run(ctx, eng, txn.Options{}, txn.RetryPolicy{}, func(tx *txn.Tx) error {
				return tx.Put(b("k"), b("v"))
			})
			require.ErrorIs(t, err, txn.ErrCommitUnknown)
			assert.ErrorIs(t, err, lost, "the engine's error stays in the chain")
		})
	}

	t.Run("too old", func(t *testing.T) {
		eng := &tooOldOnceEngine{Store: newStore(t, memkv.Config{})}
		calls := 0
		_, err := txn.Run(ctx, eng, txn.Options{}, txn.RetryPolicy{}, func(tx *txn.Tx) error {
			calls++
			return tx.Put(b("k"), b("v"))
		})
		require.NoError(t, err)
		assert.Equal(t, 2, calls, "retried once")
	})
}

// tooOldOnceEngine answers its first commit with memkv's ErrTooOld joined
// with an error of its own, applying nothing.
type tooOldOnceEngine struct {
	*memkv.Store
	failed bool
}

func (e *tooOldOnceEngine) Commit(ctx context.Context, req *txn.CommitRequest) (uint64, error) {
	if !e.failed {
		e.failed = true
		return 0, fmt.Errorf("shard 2: %w: %w", memkv.ErrTooOld, io.EOF)
	}
	return e.Store.Commit(ctx, req)
}
