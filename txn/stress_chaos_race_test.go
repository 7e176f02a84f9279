package txn_test

import (
	"errors"
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

// chaosClient runs n transfers on m, some with a deadline already passed,
// while the configuration flips between reaping at once and never.
func chaosClient(m *txn.Manager, seedN uint64, n int, committed, conflicts, deadlines, rolledBack *atomic.Uint64) error {
	r := rand.New(rand.NewPCG(seedN, 6))
	for range n {
		var opt txn.Options
		if r.IntN(8) == 0 {
			opt.Deadline = time.Unix(1, 0)
		}
		id, err := m.Begin(opt)
		if err != nil {
			return err
		}
		a, c := r.IntN(bankAccounts), r.IntN(bankAccounts)
		err = m.Do(id, func(tx *txn.Tx) error { return transfer(tx, a, c, 1+r.IntN(30)) })
		switch {
		case errors.Is(err, txn.ErrDeadline):
			deadlines.Add(1)
			continue
		case errors.Is(err, txn.ErrNotFound):
			continue
		case err != nil:
			return err
		}
		if r.IntN(4) == 0 {
			if m.Rollback(id) == nil {
				rolledBack.Add(1)
			}
			continue
		}
		_, err = m.Commit(ctx, id)
		switch {
		case err == nil:
			committed.Add(1)
		case errors.Is(err, txn.ErrConflict):
			conflicts.Add(1)
		case errors.Is(err, txn.ErrDeadline):
			deadlines.Add(1)
		case errors.Is(err, txn.ErrNotFound):
		default:
			return err
		}
	}
	return nil
}

// TestStressManagerLazyReapAndSetConfig: Begins reap lazily while
// SetConfig flips IdleTimeout between a nanosecond and an hour; after
// quiescence every transaction begun is counted once by how it ended.
func TestStressManagerLazyReapAndSetConfig(t *testing.T) {
	s := newStore(t, memkv.Config{})
	seedBank(t, s)
	m, err := txn.NewManager(s, txn.ManagerConfig{IdleTimeout: time.Nanosecond})
	require.NoError(t, err)
	var committed, conflicts, deadlines, rolledBack atomic.Uint64
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			assert.NoError(t, chaosClient(m, uint64(w), 400, &committed, &conflicts, &deadlines, &rolledBack))
		})
	}
	stop := make(chan struct{})
	var cw sync.WaitGroup
	cw.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			idle := time.Nanosecond
			if i%2 == 1 {
				idle = time.Hour
			}
			assert.NoError(t, m.SetConfig(txn.ManagerConfig{IdleTimeout: idle}))
		}
	})
	wg.Wait()
	close(stop)
	cw.Wait()
	m.Reap(time.Now().Add(24 * time.Hour))
	st := m.Stats()
	t.Logf("%+v", st)
	reaped := st.ReapedIdle + st.ReapedAge
	assert.Equal(t, uint64(1600), st.Begun)
	assert.Equal(t, committed.Load(), st.Committed)
	assert.Equal(t, conflicts.Load(), st.Conflicts)
	assert.Equal(t, conflicts.Load()+deadlines.Load(), st.Failed)
	assert.Equal(t, rolledBack.Load()+reaped, st.RolledBack)
	assert.Equal(t, st.Begun, st.Committed+st.RolledBack+st.Failed+st.Unknown)
	assert.Zero(t, st.Active)
	assert.Zero(t, st.MemoryBytes)
	assert.Equal(t, bankAccounts*bankStart, storeTotal(t, s))
}
