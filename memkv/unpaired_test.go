package memkv_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
)

// TestUnpairedKeyFailsTheCommit sends commit requests whose flattened pair
// slices have odd length. The store used to drop the unpaired key and commit:
// a read range [b, +inf) sent without its nil end went unvalidated, so a
// write into it after the read version was no conflict, and a key sent
// without its value was left out of a commit reported applied.
func TestUnpairedKeyFailsTheCommit(t *testing.T) {
	s := newStore(t, memkv.Config{})
	rv := s.ReadVersion()
	put(t, s, "b", "1") // after rv, inside the read range [a, +inf)
	for name, req := range map[string]*memkv.CommitRequest{
		"ReadRanges":  {ReadVersion: rv, ReadRanges: [][]byte{b("a")}, Sets: [][]byte{b("x"), b("1")}},
		"Sets":        {ReadVersion: s.ReadVersion(), Sets: [][]byte{b("x"), b("1"), b("y")}},
		"Clears":      {ReadVersion: s.ReadVersion(), Clears: [][]byte{b("a")}},
		"WriteRanges": {ReadVersion: s.ReadVersion(), WriteRanges: [][]byte{b("a"), nil, b("c")}},
	} {
		v0 := s.ReadVersion()
		_, err := s.Commit(ctx, req)
		assert.ErrorIs(t, err, memkv.ErrInvalidRequest, name)
		assert.Equal(t, v0, s.ReadVersion(), "%s: nothing applied", name)
	}
	_, ok, err := s.Get(ctx, s.ReadVersion(), b("x"))
	require.NoError(t, err)
	assert.False(t, ok)
}
