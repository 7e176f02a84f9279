package txn_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

// TestIdempotencyKeyIsCopiedAtBegin: the transaction keeps its own copy of
// Options.IdempotencyKey. It kept the caller's slice, so a gateway that
// parsed the key into a buffer it reuses for the client's next requests
// committed under whatever the buffer held by then: the retry, sent with the
// key the client chose, was applied a second time.
func TestIdempotencyKeyIsCopiedAtBegin(t *testing.T) {
	s := newStore(t, memkv.Config{})
	m, err := txn.NewManager(s, txn.ManagerConfig{})
	require.NoError(t, err)
	buf := []byte("req-1")
	id, err := m.Begin(txn.Options{IdempotencyKey: buf})
	require.NoError(t, err)
	copy(buf, "xxxxx") // the buffer serves the next request
	require.NoError(t, m.Put(id, b("k"), b("v")))
	v, err := m.Commit(ctx, id)
	require.NoError(t, err)

	retry, err := m.Begin(txn.Options{IdempotencyKey: []byte("req-1")})
	require.NoError(t, err)
	require.NoError(t, m.Put(retry, b("k"), b("v")))
	got, err := m.Commit(ctx, retry)
	require.ErrorIs(t, err, txn.ErrAlreadyCommitted, "the retry of req-1 was applied again")
	require.Equal(t, v, got)
}

// TestEmptyIdempotencyKeyIsNoKey: an empty IdempotencyKey is no key, as
// Options documents ("if non-empty") and as Run and memkv read it. A
// non-nil empty key ([]byte of a missing request header, say) sent a
// read-only transaction to the engine to validate its reads, so it failed
// with a conflict, or as too old, where the same transaction without a key
// commits at once from its snapshot.
func TestEmptyIdempotencyKeyIsNoKey(t *testing.T) {
	s := newStore(t, memkv.Config{})
	_, err := s.Put(ctx, b("k"), b("1"))
	require.NoError(t, err)
	for _, key := range [][]byte{nil, {}} {
		tx, err := txn.Begin(s, txn.Options{IdempotencyKey: key})
		require.NoError(t, err)
		_, _, err = tx.Get(ctx, b("k"))
		require.NoError(t, err)
		_, err = s.Put(ctx, b("k"), b("2")) // a write after the read: harmless to a read-only transaction
		require.NoError(t, err)
		v, err := tx.Commit(ctx)
		require.NoError(t, err, "a read-only transaction with key %#v", key)
		require.Equal(t, tx.ReadVersion(), v)
	}
}
