package memkv_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
)

// TestCommitFutureReadVersion pins ErrFutureVersion among Commit's errors: a
// read version above the newest committed one validates against writes that
// do not exist yet, so the commit is refused and applies nothing.
func TestCommitFutureReadVersion(t *testing.T) {
	s := newStore(t, memkv.Config{})
	v := put(t, s, "k", "v")
	_, err := s.Commit(ctx, &memkv.CommitRequest{
		ReadVersion: v + 1,
		ReadKeys:    [][]byte{b("k")},
		Sets:        [][]byte{b("k"), b("w")},
	})
	require.ErrorIs(t, err, memkv.ErrFutureVersion)
	require.Equal(t, v, s.ReadVersion(), "a refused commit created a version")
	got, _, err := s.Get(ctx, v, b("k"))
	require.NoError(t, err)
	require.Equal(t, "v", string(got))
}
