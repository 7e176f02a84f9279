package kvfixture

import (
	"context"
	"slices"
	"testing"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/stretchr/testify/require"
)

func TestKeysAreOneSetInEitherOrder(t *testing.T) {
	sorted, shuffled := Keys(64, 1), Keys(64, 7919)
	require.True(t, slices.IsSortedFunc(sorted, func(a, b []byte) int { return slices.Compare(a, b) }))
	require.NotEqual(t, sorted, shuffled)
	slices.SortFunc(shuffled, func(a, b []byte) int { return slices.Compare(a, b) })
	require.Equal(t, sorted, shuffled, "a stride prime to n permutes the same keys")
}

func TestStoresHoldEveryKey(t *testing.T) {
	keys := Keys(100, 1)
	s := Memkv(t, keys)
	db := Badger(t, keys)
	for _, k := range keys {
		v, ok, err := s.Get(context.Background(), s.ReadVersion(), k)
		require.NoError(t, err)
		require.True(t, ok, "memkv has %s", k)
		require.Equal(t, Value, v)
		require.NoError(t, db.View(func(tx *badger.Txn) error {
			it, err := tx.Get(k)
			if err != nil {
				return err
			}
			return it.Value(func(v []byte) error { require.Equal(t, Value, v); return nil })
		}))
	}
}
