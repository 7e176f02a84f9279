package txn_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

// overhead is txn's entryOverhead: the bytes charged per write, range,
// read, undo record and savepoint on top of their keys.
const overhead = 48

// acctModel is a reference accountant of one transaction: what
// Options.MemoryBudget says it holds, from its logical state.
type acctModel struct {
	ents    map[string]bool // buffered key -> deleted
	arena   int             // key and value bytes written: never given back
	reads   int             // read-set bytes: never given back
	undo    int             // undo records charged (overwrites, range deletes)
	clears  [][2]string
	wranges [][2]string
	sps     []acctMark
	idem    int
}

type acctMark struct {
	ents            map[string]bool
	clears, wranges int
	undo            int
}

func (m *acctModel) want() int {
	n := m.arena + m.reads + m.idem + overhead*(len(m.ents)+m.undo+len(m.sps))
	for _, r := range append(append([][2]string{}, m.clears...), m.wranges...) {
		n += len(r[0]) + len(r[1]) + overhead
	}
	return n
}

func (m *acctModel) write(k, v string, del bool) {
	if _, ok := m.ents[k]; ok {
		m.arena += len(v)
		if len(m.sps) > 0 {
			m.undo++
		}
	} else {
		m.arena += len(k) + len(v)
	}
	m.ents[k] = del
}

func (m *acctModel) cleared(k string) bool {
	for _, c := range m.clears {
		if k >= c[0] && k < c[1] {
			return true
		}
	}
	return false
}

// step applies one random operation other than a savepoint's to tx and
// the model.
func (m *acctModel) step(t *testing.T, r *rand.Rand, tx *txn.Tx) {
	keys := []string{"a", "b", "bb", "c", "cc", "d", "e", "f"}
	k, e := keys[r.IntN(len(keys))], keys[r.IntN(len(keys))]
	v := string(make([]byte, r.IntN(20)))
	switch r.IntN(8) {
	case 0, 1:
		require.NoError(t, tx.Put(b(k), b(v)))
		m.write(k, v, false)
	case 2:
		require.NoError(t, tx.Delete(b(k)))
		m.write(k, "", true)
	case 3:
		require.NoError(t, tx.DeleteRange(b(k), b(e)))
		if k < e {
			m.clears = append(m.clears, [2]string{k, e})
			for bk, del := range m.ents {
				if bk >= k && bk < e && !del {
					m.ents[bk] = true
					if len(m.sps) > 0 {
						m.undo++
					}
				}
			}
		}
	case 4:
		require.NoError(t, tx.AddWriteConflictRange(b(k), b(e)))
		if k < e {
			m.wranges = append(m.wranges, [2]string{k, e})
		}
	case 5:
		_, _, err := tx.Get(ctx, b(k))
		require.NoError(t, err)
		if _, own := m.ents[k]; !own && !m.cleared(k) {
			m.reads += len(k) + overhead
		}
	case 6:
		_, err := tx.GetRange(ctx, b(k), b(e), 0, r.IntN(2) == 0)
		require.NoError(t, err)
		if k < e {
			m.reads += len(k) + len(e) + overhead
		}
	case 7:
		require.NoError(t, tx.AddReadConflictKey(b(k)))
		m.reads += len(k) + overhead
	}
}

// TestAccountingModel: after every operation of random transactions
// (writes, overwrites, range deletes, conflict ranges, reads, savepoints
// rolled back to and released), MemoryUsed equals what a reference
// accountant computes from the transaction's logical state, so no path
// charges without refunding or refunds twice.
func TestAccountingModel(t *testing.T) {
	s := newStore(t, memkv.Config{})
	for seed := range uint64(60) {
		r := rand.New(rand.NewPCG(seed, 7))
		// Some keys in the store, so reads find values.
		for _, k := range []string{"b", "d", "f"} {
			w, err := txn.Begin(s, txn.Options{})
			require.NoError(t, err)
			require.NoError(t, w.Put(b(k), b("x")))
			_, err = w.Commit(ctx)
			require.NoError(t, err)
		}
		opt := txn.Options{MemoryBudget: -1} // no merge: the model is exact
		if r.IntN(3) == 0 {
			opt.IdempotencyKey = make([]byte, 1+r.IntN(30))
		}
		tx, err := txn.Begin(s, opt)
		require.NoError(t, err)
		m := &acctModel{ents: map[string]bool{}, idem: len(opt.IdempotencyKey)}
		var sps []txn.Savepoint
		for i := range 200 {
			switch op := r.IntN(12); {
			case op == 8:
				sp, err := tx.Savepoint()
				require.NoError(t, err)
				sps = append(sps, sp)
				m.sps = append(m.sps, acctMark{maps.Clone(m.ents), len(m.clears), len(m.wranges), m.undo})
			case op == 9 && len(sps) > 0:
				j := r.IntN(len(sps))
				require.NoError(t, tx.RollbackTo(sps[j]))
				mk := m.sps[j]
				m.ents, m.undo = maps.Clone(mk.ents), mk.undo
				m.clears, m.wranges = m.clears[:mk.clears], m.wranges[:mk.wranges]
				sps, m.sps = sps[:j+1], m.sps[:j+1]
			case op == 10 && len(sps) > 0:
				j := r.IntN(len(sps))
				require.NoError(t, tx.Release(sps[j]))
				sps, m.sps = sps[:j], m.sps[:j]
				if len(sps) == 0 {
					m.undo = 0
				}
			default:
				m.step(t, r, tx)
			}
			require.Equal(t, m.want(), tx.MemoryUsed(), "seed %d step %d", seed, i)
		}
		if r.IntN(2) == 0 {
			tx.Rollback()
		} else {
			_, _ = tx.Commit(ctx) // a conflict is fine: only the counts matter
		}
	}
}

// TestManagerAccountingModel: under tight budgets (read-set merges and
// refusals), with transactions ending every way (commit, conflict,
// rollback, a commit not sent, a passed deadline, reaping), the Manager's
// MemoryBytes is always the sum of what its held transactions hold, each
// within TxBudget and all within TotalBudget, and 0 once none is held.
func TestManagerAccountingModel(t *testing.T) {
	s := newStore(t, memkv.Config{})
	m, err := txn.NewManager(s, txn.ManagerConfig{TxBudget: mTxBudget, TotalBudget: mTotal})
	require.NoError(t, err)
	done, cancel := context.WithCancel(ctx)
	cancel()
	h := &mgrModel{t: t, m: m, r: rand.New(rand.NewPCG(1, 2)), held: map[txn.ID][]txn.Savepoint{}, done: done}
	allowed := []error{txn.ErrTooLarge, txn.ErrOverloaded, txn.ErrNotFound, txn.ErrNoSavepoint,
		txn.ErrDeadline, txn.ErrDone, txn.ErrTooOld, txn.ErrAlreadyCommitted, context.Canceled}
	for step := range 4000 {
		err := h.step()
		if errors.Is(err, txn.ErrTooLarge) || errors.Is(err, txn.ErrOverloaded) {
			h.refused++
		}
		var ce *txn.ConflictError
		if err != nil && !errors.As(err, &ce) && !slices.ContainsFunc(allowed, func(e error) bool { return errors.Is(err, e) }) {
			require.NoError(t, err, "step %d", step)
		}
		h.check(step)
	}
	m.Reap(time.Now().Add(time.Hour))
	h.check(-1)
	st := m.Stats()
	require.Zero(t, st.MemoryBytes)
	require.Zero(t, st.Active)
	require.NotZero(t, st.ReadSetMerges, "the budgets forced merges")
	require.NotZero(t, st.ReapedIdle, "reaping ended some")
	require.NotZero(t, h.refused, "the budgets refused some operations")
}

const mTxBudget, mTotal = 1 << 10, 4 << 10

// mgrModel drives a Manager with random operations on the transactions it
// holds, kept with their open savepoints.
type mgrModel struct {
	t       *testing.T
	m       *txn.Manager
	r       *rand.Rand
	held    map[txn.ID][]txn.Savepoint
	done    context.Context // ended: a Commit with it is not sent
	refused int
}

// check asserts that the Manager accounts what its transactions hold,
// and forgets the ids it no longer holds.
func (h *mgrModel) check(step int) {
	sum := 0
	for id := range h.held {
		err := h.m.Do(id, func(tx *txn.Tx) error {
			require.LessOrEqual(h.t, tx.MemoryUsed(), mTxBudget)
			sum += tx.MemoryUsed()
			return nil
		})
		if errors.Is(err, txn.ErrNotFound) {
			delete(h.held, id)
			continue
		}
		require.NoError(h.t, err)
	}
	st := h.m.Stats()
	require.Equal(h.t, int64(sum), st.MemoryBytes, "step %d", step)
	require.LessOrEqual(h.t, st.MemoryBytes, int64(mTotal), "step %d", step)
	require.Equal(h.t, len(h.held), st.Active, "step %d", step)
}

// step runs one random operation and returns its error.
func (h *mgrModel) step() error {
	r, m := h.r, h.m
	ids := slices.Sorted(maps.Keys(h.held))
	var id txn.ID
	if len(ids) > 0 {
		id = ids[r.IntN(len(ids))]
	}
	k := b(fmt.Sprintf("k%02d", r.IntN(40)))
	switch op := r.IntN(16); {
	case op < 2 || len(ids) == 0:
		opt := txn.Options{IdempotencyKey: make([]byte, r.IntN(3)*100)}
		if r.IntN(20) == 0 {
			opt.Deadline = time.Now().Add(-time.Second) // ends at its first operation
		}
		nid, err := m.Begin(opt)
		if err == nil {
			h.held[nid] = nil
		}
		return err
	case op == 2 || op >= 14:
		return m.Put(id, k, make([]byte, r.IntN(300)))
	case op == 3:
		return m.Do(id, func(tx *txn.Tx) error {
			for range 1 + r.IntN(8) {
				if _, _, err := tx.Get(ctx, b(fmt.Sprintf("k%02d", r.IntN(40)))); err != nil {
					return err
				}
			}
			return nil
		})
	case op == 4:
		_, err := m.GetRange(ctx, id, k, nil, 1+r.IntN(3), r.IntN(2) == 0)
		return err
	case op == 5:
		return m.Do(id, func(tx *txn.Tx) error { return tx.DeleteRange(k, nil) })
	case op == 6:
		return m.Do(id, func(tx *txn.Tx) error { return tx.AddWriteConflictKey(k) })
	case op == 7:
		return m.Do(id, func(tx *txn.Tx) error {
			sp, err := tx.Savepoint()
			if err == nil {
				h.held[id] = append(h.held[id], sp)
			}
			return err
		})
	case op == 8 && len(h.held[id]) > 0:
		sp := h.held[id][r.IntN(len(h.held[id]))]
		return m.Do(id, func(tx *txn.Tx) error {
			if r.IntN(2) == 0 {
				return tx.RollbackTo(sp)
			}
			return tx.Release(sp)
		})
	case op == 9:
		_, err := m.Commit(h.done, id) // not sent: stays held
		return err
	case op == 10:
		_, err := m.Commit(ctx, id)
		return err
	case op == 11:
		return m.Rollback(id)
	case op == 12 && r.IntN(10) == 0:
		m.Reap(time.Now().Add(time.Hour))
	}
	return nil
}
