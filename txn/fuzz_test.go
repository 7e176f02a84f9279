package txn_test

import (
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

// FuzzReadYourWrites drives a transaction with puts, deletes, range deletes,
// nested savepoints (open, roll back, release) and point and range reads
// (random limits and direction) from the fuzz input, and checks every read
// against a plain map model with a stack of saved copies. At the end it
// commits and checks the store equals the model, and that the finished
// transaction refuses further operations.
func FuzzReadYourWrites(f *testing.F) {
	f.Add([]byte{0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99})
	f.Add([]byte("\x05\x0d\x16\x2e\x37\x48\x61\x7a\x83\x9c\xa5\xbe"))
	f.Add([]byte{0x06, 0x00, 0x16, 0x07, 0x1e, 0x09, 0x27, 0x0a, 0x30, 0x08})
	f.Fuzz(checkReadYourWrites)
}

func checkReadYourWrites(t *testing.T, ops []byte) {
	{
		s, err := memkv.New(memkv.Config{Splits: [][]byte{{'d'}}})
		require.NoError(t, err)
		base := map[string]string{"b": "B", "d": "D", "f": "F"}
		_, err = s.Commit(ctx, &memkv.CommitRequest{Sets: [][]byte{b("b"), b("B"), b("d"), b("D"), b("f"), b("F")}})
		require.NoError(t, err)
		tx, err := txn.Begin(s, txn.Options{})
		require.NoError(t, err)
		model := maps.Clone(base)
		type saved struct {
			sp txn.Savepoint
			m  map[string]string
		}
		var stack []saved
		key := func(x byte) string { return string(rune('a' + x%7)) }
		for i, op := range ops {
			k := key(op >> 4)
			switch op % 10 {
			case 0, 1:
				v := string(rune('0' + i%10))
				require.NoError(t, tx.Put(b(k), b(v)))
				model[k] = v
			case 2:
				require.NoError(t, tx.Delete(b(k)))
				delete(model, k)
			case 3:
				e := key(op >> 1)
				require.NoError(t, tx.DeleteRange(b(k), b(e)))
				for mk := range model {
					if mk >= k && mk < e {
						delete(model, mk)
					}
				}
			case 4:
				v, ok, err := tx.Get(ctx, b(k))
				require.NoError(t, err)
				mv, mok := model[k]
				require.Equal(t, mok, ok, "get %s", k)
				require.Equal(t, mv, string(v), "get %s", k)
			case 5, 9:
				e, limit, rev := key(op>>1), int(op>>5)%4, op&0x10 != 0
				kvs, err := tx.GetRange(ctx, b(k), b(e), limit, rev)
				require.NoError(t, err)
				want, _ := modelAPI(model).scan(k, e, limit, rev)
				require.Equal(t, want, keysOf(kvs), "range [%s, %s) limit %d reverse %v", k, e, limit, rev)
			case 6:
				sp, err := tx.Savepoint()
				require.NoError(t, err)
				stack = append(stack, saved{sp, maps.Clone(model)})
			case 7:
				if len(stack) == 0 {
					require.ErrorIs(t, tx.RollbackTo(txn.Savepoint{}), txn.ErrNoSavepoint)
					continue
				}
				j := int(op>>4) % len(stack)
				require.NoError(t, tx.RollbackTo(stack[j].sp))
				model = maps.Clone(stack[j].m)
				stack = stack[:j+1]
			case 8:
				if len(stack) == 0 {
					continue
				}
				j := int(op>>4) % len(stack)
				require.NoError(t, tx.Release(stack[j].sp))
				require.ErrorIs(t, tx.RollbackTo(stack[j].sp), txn.ErrNoSavepoint)
				stack = stack[:j]
			}
		}
		_, err = tx.Commit(ctx)
		require.NoError(t, err, "nothing else wrote: the commit cannot conflict")
		got := finalState(t, s)
		require.Equal(t, slices.Sorted(maps.Keys(model)), slices.Sorted(maps.Keys(got)))
		require.Equal(t, model, got)
		require.ErrorIs(t, tx.Put(b("a"), nil), txn.ErrDone)
		_, err = tx.Savepoint()
		require.ErrorIs(t, err, txn.ErrDone)
	}
}
