package memkv_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
)

// TestPutNilStoresEmpty pins "a nil value is stored as empty" of Store.Put: in
// a commit's Sets a nil value deletes the key, so Put(k, nil) over a value must
// leave k present with an empty value, not delete it.
func TestPutNilStoresEmpty(t *testing.T) {
	s := newStore(t, memkv.Config{})
	put(t, s, "k", "old")
	v, err := s.Put(ctx, b("k"), nil)
	require.NoError(t, err)
	got, ok, err := s.Get(ctx, v, b("k"))
	require.NoError(t, err)
	require.True(t, ok, "Put with a nil value deleted the key")
	require.Empty(t, got)
	require.EqualValues(t, 1, s.Stats().Keys)
}
