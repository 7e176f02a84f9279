package txn_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

// FuzzStateTransitions drives several transactions held by a Manager, and a
// second writer, with operations drawn from the fuzz input, and checks that
// only legal transitions happen: an open transaction accepts operations; a
// commit ends it (committed, or failed on a conflict); a rollback or a reap
// ends it; after its end every operation fails with ErrNotFound (through the
// manager) or ErrDone (on the Tx), and the manager's counters add up.
func FuzzStateTransitions(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7})
	f.Add([]byte{0, 0, 8, 9, 2, 10, 3, 11, 4, 12})
	f.Add([]byte("\x00\x10\x20\x05\x15\x25\x06\x16\x26\x07"))
	f.Fuzz(func(t *testing.T, ops []byte) {
		s, err := memkv.New(memkv.Config{})
		require.NoError(t, err)
		m, err := txn.NewManager(s, txn.ManagerConfig{MaxTxns: 4})
		require.NoError(t, err)
		type slot struct {
			id   txn.ID
			open bool
			tx   *txn.Tx
		}
		var slots []*slot
		ended := 0
		for _, op := range ops {
			if op%8 == 0 || len(slots) == 0 {
				id, err := m.Begin(txn.Options{})
				if errors.Is(err, txn.ErrOverloaded) {
					require.Equal(t, 4, m.Len())
					continue
				}
				require.NoError(t, err)
				sl := &slot{id: id, open: true}
				require.NoError(t, m.Do(id, func(tx *txn.Tx) error { sl.tx = tx; return nil }))
				slots = append(slots, sl)
				continue
			}
			sl := slots[int(op>>3)%len(slots)]
			wasOpen := sl.open
			k := []byte{'k', '0' + op>>5}
			var err error
			switch op % 8 {
			case 1:
				_, _, err = m.Get(ctx, sl.id, k)
			case 2:
				err = m.Put(sl.id, k, []byte{op})
			case 3:
				_, err = m.Commit(ctx, sl.id)
				if sl.open && (err == nil || errors.Is(err, txn.ErrConflict)) {
					sl.open = false
					ended++
					err = nil
				}
			case 4:
				err = m.Rollback(sl.id)
				if sl.open && err == nil {
					sl.open = false
					ended++
				}
			case 5:
				_, err = s.Put(ctx, k, []byte{op}) // a concurrent writer
				require.NoError(t, err)
				continue
			case 6:
				err = m.Do(sl.id, func(tx *txn.Tx) error {
					sp, err := tx.Savepoint()
					if err != nil {
						return err
					}
					if err := tx.Put(k, nil); err != nil {
						return err
					}
					return tx.RollbackTo(sp)
				})
			case 7:
				_, err = m.GetRange(ctx, sl.id, []byte("k"), []byte("l"), int(op>>6), op&4 != 0)
			}
			if wasOpen {
				require.NoError(t, err, "open transaction, op %d", op%8)
			} else {
				require.ErrorIs(t, err, txn.ErrNotFound, "ended transaction, op %d", op%8)
				require.ErrorIs(t, sl.tx.Put(k, nil), txn.ErrDone)
				_, cerr := sl.tx.Commit(ctx)
				require.ErrorIs(t, cerr, txn.ErrDone)
			}
		}
		open := 0
		for _, sl := range slots {
			if sl.open {
				open++
			}
		}
		st := m.Stats()
		require.Equal(t, open, st.Active)
		require.Equal(t, uint64(len(slots)), st.Begun)
		require.Equal(t, uint64(ended), st.Committed+st.RolledBack+st.Failed)
	})
}
