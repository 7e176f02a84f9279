package memkv_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
)

// TestReadOnlyCommitRecordsNoIdempotencyKey: a commit without writes applies
// nothing and records no idempotency key (recorded, the keys of read-only
// commits would pile up with no bound, since such commits create no version
// and never move the window on). Its retry after a lost reply is validated
// again: it may fail with a conflict although the first attempt committed,
// and a later commit with writes under the same key is applied. The docs
// promised ErrAlreadyCommitted for every second commit with a key.
func TestReadOnlyCommitRecordsNoIdempotencyKey(t *testing.T) {
	s := newStore(t, memkv.Config{Faults: memkv.Faults{
		DropReply: func(r *memkv.CommitRequest) bool { return string(r.IdempotencyKey) == "ro" },
	}})
	rv := put(t, s, "k", "1")
	req := &memkv.CommitRequest{ReadVersion: rv, ReadKeys: [][]byte{b("k")}, IdempotencyKey: b("ro")}
	_, err := s.Commit(ctx, req)
	require.ErrorIs(t, err, memkv.ErrCommitUnknown, "validated, reply dropped")
	require.EqualValues(t, 2, s.Stats().Commits, "the Put and the read-only commit")

	put(t, s, "k", "2")
	_, err = s.Commit(ctx, req)
	require.ErrorIs(t, err, memkv.ErrConflict, "the retry is validated again")
	require.NotErrorIs(t, err, memkv.ErrAlreadyCommitted)

	require.NoError(t, s.SetConfig(memkv.Config{})) // no more dropped replies
	v, err := s.Commit(ctx, &memkv.CommitRequest{Sets: [][]byte{b("k"), b("3")}, IdempotencyKey: b("ro")})
	require.NoError(t, err, "the key was not taken by the read-only commit")
	require.Equal(t, s.ReadVersion(), v)
}
