package txn_test

import (
	"bytes"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

// TestRefusedChargeLeavesOthersAlone: a write or an idempotency key
// refused as over the total budget was added to the shared account before
// the check and taken back after it, so while one client's oversized
// requests were being refused, the account looked full to every other
// transaction: their Puts (here of no bytes at all) failed with
// ErrTooLarge, after merging their read sets, and their Begins with
// ErrOverloaded, although the budget held what they asked for.
func TestRefusedChargeLeavesOthersAlone(t *testing.T) {
	s := newStore(t, memkv.Config{})
	const total = 1 << 20
	m, err := txn.NewManager(s, txn.ManagerConfig{TotalBudget: total, TxBudget: total})
	require.NoError(t, err)
	big, err := m.Begin(txn.Options{})
	require.NoError(t, err)
	small, err := m.Begin(txn.Options{})
	require.NoError(t, err)
	require.NoError(t, m.Put(small, b("k"), nil)) // the budget now holds its entry
	huge := make([]byte, total)
	key := txn.Options{IdempotencyKey: bytes.Repeat([]byte{'i'}, total)}

	var stop atomic.Bool
	var wrongly atomic.Int64
	var wg sync.WaitGroup
	wg.Go(func() { // the client whose requests do not fit
		for !stop.Load() {
			assert.ErrorIs(t, m.Put(big, b("big"), huge), txn.ErrTooLarge)
			_, err := m.Begin(key)
			assert.ErrorIs(t, err, txn.ErrOverloaded)
		}
	})
	wg.Go(func() { // one whose requests do
		defer stop.Store(true)
		for range 20_000 {
			if m.Put(small, b("k"), nil) != nil { // an overwrite: 0 bytes
				wrongly.Add(1)
			}
			if id, err := m.Begin(txn.Options{}); err != nil {
				wrongly.Add(1)
			} else {
				assert.NoError(t, m.Rollback(id))
			}
		}
	})
	wg.Wait()
	assert.Zero(t, wrongly.Load(), "requests refused while another's were")
	assert.Zero(t, m.Stats().ReadSetMerges)
	require.NoError(t, m.Rollback(big))
	require.NoError(t, m.Rollback(small))
	assert.Zero(t, m.Stats().MemoryBytes)
}
