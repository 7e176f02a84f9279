package txn_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

// TestManagerStatsTooOldTooLarge pins ManagerStats.TooOld ("commits failed
// with ErrTooOld") and TooLarge ("commits failed with ErrTooLarge"): each
// failed commit counts once in its own field and in Failed, in no other.
func TestManagerStatsTooOldTooLarge(t *testing.T) {
	s := newStore(t, memkv.Config{HistoryVersions: 1, MaxCommitBytes: 16})
	m, err := txn.NewManager(s, txn.ManagerConfig{})
	require.NoError(t, err)

	old, err := m.Begin(txn.Options{})
	require.NoError(t, err)
	_, _, err = m.Get(ctx, old, b("k"))
	require.NoError(t, err)
	require.NoError(t, m.Put(old, b("k"), b("v")))
	for range 3 {
		_, err = s.Put(ctx, b("other"), b("x"))
		require.NoError(t, err)
	}
	_, err = m.Commit(ctx, old)
	require.ErrorIs(t, err, txn.ErrTooOld)

	big, err := m.Begin(txn.Options{})
	require.NoError(t, err)
	require.NoError(t, m.Put(big, b("k"), make([]byte, 64)))
	_, err = m.Commit(ctx, big)
	require.ErrorIs(t, err, txn.ErrTooLarge)

	require.Equal(t, txn.ManagerStats{Begun: 2, Failed: 2, TooOld: 1, TooLarge: 1}, m.Stats())
}
