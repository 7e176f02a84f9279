package memkv_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
)

// TestRetryOfAppliedCommitAfterMaxCommitBytesLowered: a commit is applied but
// its reply is lost, MaxCommitBytes is lowered below its size, and it is
// retried with its idempotency key. The retry must learn that the first
// attempt committed (ErrAlreadyCommitted and its version): the size check
// ran before the idempotency lookup, so it failed with ErrTooLarge, which
// tells the caller to split a transaction that is already applied.
func TestRetryOfAppliedCommitAfterMaxCommitBytesLowered(t *testing.T) {
	s := newStore(t, memkv.Config{Faults: memkv.Faults{
		DropReply: func(*memkv.CommitRequest) bool { return true },
	}})
	req := &memkv.CommitRequest{Sets: [][]byte{b("key"), b("value")}, IdempotencyKey: b("id-1")}
	_, err := s.Commit(ctx, req)
	require.ErrorIs(t, err, memkv.ErrCommitUnknown)
	first := s.ReadVersion()
	require.NoError(t, s.SetConfig(memkv.Config{MaxCommitBytes: 4}))

	v, err := s.Commit(ctx, req)
	require.ErrorIs(t, err, memkv.ErrAlreadyCommitted)
	require.Equal(t, first, v)
	require.EqualValues(t, 0, s.Stats().TooLarge)

	// A new commit of that size is still refused, and applies nothing.
	_, err = s.Commit(ctx, &memkv.CommitRequest{Sets: [][]byte{b("key"), b("value")}, IdempotencyKey: b("id-2")})
	require.ErrorIs(t, err, memkv.ErrTooLarge)
	require.Equal(t, first, s.ReadVersion())
	require.EqualValues(t, 1, s.Stats().TooLarge)
}
