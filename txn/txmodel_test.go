package txn_test

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

// mop is one operation of a transaction script.
type mop struct {
	kind  int // 0 put, 1 delete, 2 delete range, 3 get, 4 range, 5 snapshot get, 6 savepoint, 7 rollback, 8 release
	k, e  string
	v     string
	limit int
	rev   bool
	j     int // savepoint stack index
}

func (o mop) String() string {
	return fmt.Sprintf("{%d %s %s %s l%d r%v j%d}", o.kind, o.k, o.e, o.v, o.limit, o.rev, o.j)
}

type mstate struct {
	tx    *txn.Tx
	model map[string]string
	sps   []txn.Savepoint
	saved []map[string]string
}

// do applies o to the transaction and to the model; for a recorded read it
// returns the answer. A refused operation (ErrTooLarge) changes neither.
func (s *mstate) do(o mop) (ans string, rec bool, err error) {
	switch o.kind {
	case 0:
		if err = s.tx.Put(b(o.k), b(o.v)); err == nil {
			s.model[o.k] = o.v
		}
	case 1:
		if err = s.tx.Delete(b(o.k)); err == nil {
			delete(s.model, o.k)
		}
	case 2:
		if err = s.tx.DeleteRange(b(o.k), b(o.e)); err == nil {
			for mk := range s.model {
				if mk >= o.k && mk < o.e {
					delete(s.model, mk)
				}
			}
		}
	case 3, 5:
		var v []byte
		var ok bool
		if o.kind == 3 {
			v, ok, err = s.tx.Get(ctx, b(o.k))
		} else {
			v, ok, err = s.tx.Snapshot().Get(ctx, b(o.k))
		}
		return fmt.Sprint(ok, string(v)), o.kind == 3, err
	case 4:
		var kvs []txn.KV
		end := b(o.e)
		if o.e == "\xff\xff" {
			end = nil // no upper bound
		}
		kvs, err = s.tx.GetRange(ctx, b(o.k), end, o.limit, o.rev)
		return fmt.Sprint(keysOf(kvs)), true, err
	case 6:
		var sp txn.Savepoint
		if sp, err = s.tx.Savepoint(); err == nil {
			s.sps = append(s.sps, sp)
			s.saved = append(s.saved, maps.Clone(s.model))
		}
	case 7:
		if len(s.sps) > 0 {
			j := o.j % len(s.sps)
			if err = s.tx.RollbackTo(s.sps[j]); err == nil {
				s.model = maps.Clone(s.saved[j])
				s.sps, s.saved = s.sps[:j+1], s.saved[:j+1]
			}
		}
	case 8:
		if len(s.sps) > 0 {
			j := o.j % len(s.sps)
			if err = s.tx.Release(s.sps[j]); err == nil {
				s.sps, s.saved = s.sps[:j], s.saved[:j]
			}
		}
	}
	return "", false, err
}

// modelAnswer is what a read of o should return per the model.
func (s *mstate) modelAnswer(o mop) string {
	switch o.kind {
	case 3, 5:
		v, ok := s.model[o.k]
		return fmt.Sprint(ok, v)
	case 4:
		want, _ := modelAPI(s.model).scan(o.k, o.e, o.limit, o.rev)
		return fmt.Sprint(want)
	}
	return ""
}

// TestTxModel drives serializable transactions with random puts, deletes,
// range deletes, point, range and snapshot reads, and nested savepoints,
// under memory budgets small enough to force read-set merges and refusals.
// Every read is checked against a map model; the budget is never exceeded.
// Then another writer commits random writes, and the script is replayed
// in a fresh transaction: if a recorded read answers differently, the
// first transaction's commit must fail with a conflict; if it commits, the
// store must equal the replay's model.
func TestTxModel(t *testing.T) {
	trials := 3000
	if testing.Short() {
		trials = 500
	}
	r := rand.New(rand.NewPCG(21, 21))
	keys := []string{"", "\x00", "a", "a\x00", "a\x00\x00", "ab", "b", "b\x00", "c", "d", "e", "f", "g", "h\xff", "i"}
	key := func() string { return keys[r.IntN(len(keys))] }
	bkey := func() []byte { return b(key()) }
	missed, real, falseConf := 0, 0, 0
	for trial := range trials {
		s := newStore(t, memkv.Config{Splits: [][]byte{b("f")}})
		init := &memkv.CommitRequest{}
		for range 6 {
			init.Sets = append(init.Sets, bkey(), b(fmt.Sprint(r.IntN(9))))
		}
		_, err := s.Commit(ctx, init)
		require.NoError(t, err)
		budget := []int{0, 250, 400, 700}[r.IntN(4)]
		tx, err := txn.Begin(s, txn.Options{MemoryBudget: budget})
		require.NoError(t, err)
		st := &mstate{tx: tx, model: finalState(t, s)}
		var script []mop
		var answers []string
		for i := range 5 + r.IntN(25) {
			o := mop{kind: r.IntN(9), k: key(), e: key(), v: fmt.Sprint("v", i),
				limit: r.IntN(4), rev: r.IntN(2) == 0, j: r.IntN(4)}
			if o.kind == 2 && o.e < o.k {
				o.k, o.e = o.e, o.k
			}
			if o.kind == 4 && r.IntN(4) == 0 {
				o.e = "\xff\xff"
			}
			want := st.modelAnswer(o)
			ans, rec, err := st.do(o)
			if errors.Is(err, txn.ErrTooLarge) {
				continue
			}
			require.NoError(t, err, "trial %d op %v", trial, o)
			if budget > 0 {
				require.LessOrEqual(t, tx.MemoryUsed(), budget, "trial %d op %v", trial, o)
			}
			if o.kind >= 3 && o.kind <= 5 {
				require.Equal(t, want, ans, "trial %d op %d %v script %v", trial, i, o, script)
			}
			script = append(script, o)
			if rec {
				answers = append(answers, ans)
			} else if o.kind == 5 {
				answers = append(answers, "")
			}
		}

		// A write, so that the commit is validated (a read-only one commits
		// from its snapshot, serialized before the other writer).
		if err := tx.Put(b("zz"), b("x")); errors.Is(err, txn.ErrTooLarge) {
			tx.Rollback()
			continue
		}
		w := randomWrites(r, s.ReadVersion(), bkey)
		_, err = s.Commit(ctx, w)
		require.NoError(t, err)

		re := &mstate{tx: begin(t, s, txn.Serializable), model: finalState(t, s)}
		changed, n := false, 0
		for _, o := range script {
			ans, rec, err := re.do(o)
			require.NoError(t, err)
			if o.kind == 5 {
				n++
			} else if rec {
				changed = changed || ans != answers[n]
				n++
			}
		}
		_, _, err = re.do(mop{kind: 0, k: "zz", v: "x"})
		require.NoError(t, err)
		re.tx.Rollback()
		_, err = tx.Commit(ctx)
		switch {
		case err == nil && changed:
			missed++
			t.Errorf("trial %d: missed conflict, budget %d, merges %d, script %v, writes %q clears %q",
				trial, budget, tx.ReadSetMerges(), script, w.Sets, w.Clears)
		case err == nil:
			require.Equal(t, re.model, finalState(t, s), "trial %d script %v", trial, script)
		case changed:
			require.ErrorIs(t, err, txn.ErrConflict)
			real++
		default:
			require.ErrorIs(t, err, txn.ErrConflict)
			falseConf++
		}
	}
	t.Logf("%d trials: %d real conflicts, %d missed, %d false", trials, real, missed, falseConf)
	require.Zero(t, missed)
	require.Positive(t, real)
}
