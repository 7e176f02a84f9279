package memkv_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
)

// TestCommitEndedContextNotApplied pins Commit's promise that a commit
// whose context has already ended is not applied and reports a temporary
// error wrapping the context's (txn retries on it). Removing the ctx.Err()
// check in beforeCommit passed the suite before this test. Found by a review.
func TestCommitEndedContextNotApplied(t *testing.T) {
	s, err := memkv.New(memkv.Config{})
	require.NoError(t, err)
	before := s.Stats().Version

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for name, commit := range map[string]func() error{
		"Commit": func() error {
			_, err := s.Commit(ctx, &memkv.CommitRequest{Sets: [][]byte{[]byte("k"), []byte("v")}})
			return err
		},
		"Put": func() error { _, err := s.Put(ctx, []byte("k"), []byte("v")); return err },
	} {
		err := commit()
		require.Error(t, err, name)
		assert.ErrorIs(t, err, context.Canceled, name)
		var tmp interface{ Temporary() bool }
		require.True(t, errors.As(err, &tmp), "%s: %v reports no Temporary", name, err)
		assert.True(t, tmp.Temporary(), name)
	}
	assert.Equal(t, before, s.Stats().Version, "no version was created")
	_, ok, err := s.Get(context.Background(), s.Stats().Version, []byte("k"))
	require.NoError(t, err)
	assert.False(t, ok, "the key was not written")
}
