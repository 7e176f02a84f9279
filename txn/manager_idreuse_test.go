package txn_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

// TestManagerIDsNotReusedAcrossManagers: every Manager numbered its
// transactions from 1, so after a gateway restarted (a new Manager), a
// thin client still holding id 1 from before wrote into whichever client's
// transaction now had id 1 instead of getting ErrNotFound.
func TestManagerIDsNotReusedAcrossManagers(t *testing.T) {
	s := newStore(t, memkv.Config{})
	before, err := txn.NewManager(s, txn.ManagerConfig{})
	require.NoError(t, err)
	old, err := before.Begin(txn.Options{})
	require.NoError(t, err)

	after, err := txn.NewManager(s, txn.ManagerConfig{}) // the restarted gateway's
	require.NoError(t, err)
	cur, err := after.Begin(txn.Options{})
	require.NoError(t, err)
	require.NotZero(t, cur)
	assert.NotEqual(t, old, cur, "a new Manager hands out an id an old one did")
	assert.ErrorIs(t, after.Put(old, []byte("k"), []byte("v")), txn.ErrNotFound,
		"the old client's write lands in another transaction")
}
