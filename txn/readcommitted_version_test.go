package txn_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

// A read-committed transaction with no read conflicts "commits at the newest
// version" (package doc): its request carries the engine's version at commit
// time, not the one at Begin. (memkv does not refuse a request without reads
// as too old, so TestReadCommittedWriteOnlyNeverTooOld passes either way.)
func TestReadCommittedWriteOnlyRequestTakesTheNewestVersion(t *testing.T) {
	s := newStore(t, memkv.Config{})
	tx := begin(t, s, txn.ReadCommitted)
	at := tx.ReadVersion()
	for range 3 {
		_, err := s.Put(ctx, b("other"), b("x"))
		require.NoError(t, err)
	}
	require.NoError(t, tx.Put(b("k"), b("v")))
	require.Greater(t, s.ReadVersion(), at)
	require.Equal(t, s.ReadVersion(), tx.Request().ReadVersion)
	// With an explicit read conflict it keeps the version at Begin.
	require.NoError(t, tx.AddReadConflictKey(b("other")))
	require.Equal(t, at, tx.Request().ReadVersion)
}
