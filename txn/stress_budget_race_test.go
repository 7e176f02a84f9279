package txn_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

// budgetTally is what the clients of a Manager under memory pressure saw.
type budgetTally struct {
	begun, overloaded, tooLarge, merges, committed, conflicts, rolledBack atomic.Uint64
}

// budgetClient runs n transactions reading many keys on m, whose budgets
// force read-set merges and refusals.
func budgetClient(m *txn.Manager, seedN uint64, n int, tl *budgetTally) error {
	r := rand.New(rand.NewPCG(seedN, 5))
	for range n {
		id, err := m.Begin(txn.Options{})
		if errors.Is(err, txn.ErrOverloaded) {
			tl.overloaded.Add(1)
			continue
		}
		if err != nil {
			return err
		}
		tl.begun.Add(1)
		merges := 0
		for op := range 1 + r.IntN(6) {
			err = m.Do(id, func(tx *txn.Tx) error {
				defer func() { merges = tx.ReadSetMerges() }()
				for range 20 {
					if _, _, err := tx.Get(ctx, []byte(fmt.Sprintf("k/%03d", r.IntN(300)))); err != nil {
						return err
					}
				}
				return tx.Put([]byte(fmt.Sprintf("k/%03d", r.IntN(300))), make([]byte, 300*op))
			})
			switch {
			case errors.Is(err, txn.ErrTooLarge):
				tl.tooLarge.Add(1)
			case errors.Is(err, txn.ErrNotFound):
				tl.merges.Add(uint64(merges))
				goto next // reaped
			case err != nil:
				return err
			}
		}
		if r.IntN(4) == 0 {
			err = m.Rollback(id)
			if err == nil {
				tl.rolledBack.Add(1)
			}
		} else {
			_, err = m.Commit(ctx, id)
			switch {
			case err == nil:
				tl.committed.Add(1)
			case errors.Is(err, txn.ErrConflict):
				tl.conflicts.Add(1)
			case !errors.Is(err, txn.ErrNotFound):
				return err
			}
		}
		tl.merges.Add(uint64(merges))
	next:
	}
	return nil
}

// TestStressManagerBudgets: concurrent clients under a gateway-wide budget
// that forces merges, refusals and overload while a reaper runs: after
// quiescence the Stats equal what the clients saw and no byte stays
// accounted.
func TestStressManagerBudgets(t *testing.T) {
	s := newStore(t, memkv.Config{})
	m, err := txn.NewManager(s, txn.ManagerConfig{TxBudget: 2 << 10, TotalBudget: 8 << 10, MaxTxns: 5})
	require.NoError(t, err)
	var tl budgetTally
	var wg sync.WaitGroup
	const workers = 6
	for w := range workers {
		wg.Go(func() { assert.NoError(t, budgetClient(m, uint64(w), 150, &tl)) })
	}
	stop := make(chan struct{})
	var rw sync.WaitGroup
	rw.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			m.Reap(time.Now().Add(time.Hour))
		}
	})
	wg.Wait()
	close(stop)
	rw.Wait()
	m.Reap(time.Now().Add(time.Hour))
	st := m.Stats()
	t.Logf("%+v", st)
	assert.Equal(t, tl.begun.Load(), st.Begun)
	assert.Equal(t, tl.overloaded.Load(), st.Overloaded)
	assert.Equal(t, tl.committed.Load(), st.Committed)
	assert.Equal(t, tl.conflicts.Load(), st.Conflicts)
	assert.Equal(t, tl.rolledBack.Load()+st.ReapedIdle+st.ReapedAge, st.RolledBack)
	assert.Equal(t, tl.merges.Load(), st.ReadSetMerges)
	assert.Equal(t, st.Begun, st.Committed+st.RolledBack+st.Failed+st.Unknown)
	assert.Zero(t, st.Active)
	assert.Zero(t, st.MemoryBytes)
	assert.Positive(t, st.ReadSetMerges)
	assert.Positive(t, tl.tooLarge.Load())
}

// sharedRound has g goroutines increment a counter in one held transaction
// and then race to end it, half by Commit and half by Rollback. It returns
// the increments that succeeded, how many ends did, and whether the commit
// was the one.
func sharedRound(m *txn.Manager, id txn.ID, key []byte, g, k int) (incs, ends int64, committed bool, err error) {
	var nIncs, nEnds atomic.Int64
	var won atomic.Bool
	errs := make(chan error, g)
	var wg sync.WaitGroup
	for w := range g {
		wg.Go(func() {
			for range k {
				err := m.Do(id, func(tx *txn.Tx) error {
					n, err := readInt(tx, key)
					if err != nil {
						return err
					}
					return tx.Put(key, []byte(fmt.Sprint(n+1)))
				})
				if errors.Is(err, txn.ErrNotFound) {
					break
				}
				if err != nil {
					errs <- err
					return
				}
				nIncs.Add(1)
			}
			var err error
			if w%2 == 0 {
				_, err = m.Commit(ctx, id)
				if err == nil {
					won.Store(true)
				}
			} else {
				err = m.Rollback(id)
			}
			switch {
			case err == nil:
				nEnds.Add(1)
			case !errors.Is(err, txn.ErrNotFound):
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	return nIncs.Load(), nEnds.Load(), won.Load(), <-errs
}

// TestStressManagerSharedTransaction: several goroutines operate on one
// held transaction and race to commit or roll it back: exactly one end
// succeeds, and a commit carries every increment that succeeded.
func TestStressManagerSharedTransaction(t *testing.T) {
	s := newStore(t, memkv.Config{})
	m, err := txn.NewManager(s, txn.ManagerConfig{})
	require.NoError(t, err)
	var commits, rollbacks uint64
	for round := range 200 {
		key := []byte(fmt.Sprintf("shared/%d", round))
		id, err := m.Begin(txn.Options{})
		require.NoError(t, err)
		incs, ends, committed, err := sharedRound(m, id, key, 4, 5)
		require.NoError(t, err)
		require.EqualValues(t, 1, ends, "round %d: exactly one end succeeds", round)
		v, ok, err := s.Get(ctx, s.ReadVersion(), key)
		require.NoError(t, err)
		if committed {
			commits++
			require.Equal(t, fmt.Sprint(incs), string(v), "round %d", round)
		} else {
			rollbacks++
			require.False(t, ok, "round %d: rolled back", round)
		}
	}
	st := m.Stats()
	assert.Equal(t, commits, st.Committed)
	assert.Equal(t, rollbacks, st.RolledBack)
	assert.Zero(t, st.Active)
	assert.Zero(t, st.MemoryBytes)
	t.Logf("%+v", st)
}
