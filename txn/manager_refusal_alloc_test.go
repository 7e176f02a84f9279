package txn_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

// A Begin refused at MaxTxns is refused before it builds a transaction: under
// overload each refusal used to allocate a transaction (and read the engine's
// version) only to drop it, its buffers never returned to their pool.
func TestManagerRefusalAtMaxTxnsAllocatesNothing(t *testing.T) {
	m, err := txn.NewManager(newStore(t, memkv.Config{}), txn.ManagerConfig{MaxTxns: 1})
	require.NoError(t, err)
	_, err = m.Begin(txn.Options{})
	require.NoError(t, err)
	refused := 0
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := m.Begin(txn.Options{}); err == txn.ErrOverloaded {
			refused++
		}
	})
	require.Equal(t, 101, refused) // AllocsPerRun runs the function once more to warm up
	require.Zero(t, allocs)
	require.EqualValues(t, 101, m.Stats().Overloaded)
}
