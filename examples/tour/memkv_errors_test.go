package main

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
)

// TestMemkvTransferErrorsFail: the memkv section's transfers retried a
// conflict or a too-old read, and gave up on any other commit error
// without a word, while the line says "N conflicts caught and M too-old
// reads, all retried". A transfer lost that way keeps the balances' sum,
// so the section's one check passed and the tour exited 0 with a commit
// missing. Such an error now fails the section. Found by a review.
func TestMemkvTransferErrorsFail(t *testing.T) {
	ctx := context.Background()
	var failed atomic.Bool
	s, err := memkv.New(memkv.Config{Faults: memkv.Faults{FailBeforeCommit: func(*memkv.CommitRequest) bool {
		return failed.CompareAndSwap(false, true) // the first transfer's commit fails once
	}}})
	require.NoError(t, err)
	seed := &memkv.CommitRequest{Sets: [][]byte{[]byte("acct/00"), []byte("100"), []byte("acct/01"), []byte("100")}}
	failed.Store(true) // not the seeding commit
	_, err = s.Commit(ctx, seed)
	require.NoError(t, err)
	failed.Store(false)

	err = memkvTransfers(ctx, s, 1, 4, 2)
	require.Error(t, err)
	assert.ErrorIs(t, err, memkv.ErrInjected)
}
