package txn_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

func TestManagerLifecycleAndStats(t *testing.T) {
	s := newStore(t, memkv.Config{})
	m, err := txn.NewManager(s, txn.ManagerConfig{})
	require.NoError(t, err)
	a, err := m.Begin(txn.Options{})
	require.NoError(t, err)
	c, err := m.Begin(txn.Options{})
	require.NoError(t, err)
	_, _, err = m.Get(ctx, a, b("k"))
	require.NoError(t, err)
	_, err = m.GetRange(ctx, c, b("k"), b("l"), 0, false)
	require.NoError(t, err)
	require.NoError(t, m.Put(a, b("k"), b("a")))
	require.NoError(t, m.Put(c, b("k2"), b("c")))
	require.NoError(t, m.Delete(c, b("k3")))
	_, err = m.Commit(ctx, a)
	require.NoError(t, err)
	_, err = m.Commit(ctx, c)
	assert.ErrorIs(t, err, txn.ErrConflict)
	d, _ := m.Begin(txn.Options{})
	require.NoError(t, m.Rollback(d))
	assert.ErrorIs(t, m.Put(d, b("x"), nil), txn.ErrNotFound)
	st := m.Stats()
	assert.Equal(t, txn.ManagerStats{Begun: 3, Committed: 1, RolledBack: 1, Failed: 1, Conflicts: 1, ConflictsReadRange: 1}, st)
	assert.EqualError(t, m.SetConfig(txn.ManagerConfig{MaxTxns: -1}), "txn: ManagerConfig.MaxTxns -1 is negative: invalid config")
}

func TestManagerReapsIdleAndOld(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStore(t, memkv.Config{})
		m, err := txn.NewManager(s, txn.ManagerConfig{IdleTimeout: 10 * time.Second, MaxAge: time.Minute})
		require.NoError(t, err)
		idle, _ := m.Begin(txn.Options{})
		busy, _ := m.Begin(txn.Options{})
		require.NoError(t, m.Put(idle, b("k"), b("v")))
		for range 11 {
			time.Sleep(5 * time.Second) // virtual time: the busy client keeps working
			require.NoError(t, m.Put(busy, b("k"), b("v")))
		}
		assert.Equal(t, 1, m.Reap(time.Now()), "the idle one")
		assert.ErrorIs(t, m.Put(idle, b("k"), nil), txn.ErrNotFound)
		time.Sleep(5 * time.Second)
		require.NoError(t, m.Put(busy, b("k"), b("v")))
		assert.Equal(t, 1, m.Reap(time.Now()), "the busy one, past MaxAge")
		st := m.Stats()
		assert.Equal(t, uint64(1), st.ReapedIdle)
		assert.Equal(t, uint64(1), st.ReapedAge)
		assert.Equal(t, 0, st.Active)
		assert.Equal(t, int64(0), st.MemoryBytes, "budgets released")

		// Begin reaps lazily.
		_, _ = m.Begin(txn.Options{})
		time.Sleep(11 * time.Second)
		_, _ = m.Begin(txn.Options{})
		assert.Equal(t, 1, m.Len())
	})
}

func TestManagerBudgets(t *testing.T) {
	s := newStore(t, memkv.Config{})
	m, err := txn.NewManager(s, txn.ManagerConfig{TotalBudget: 10_000, TxBudget: 8_000, MaxTxns: 3})
	require.NoError(t, err)
	ids := make([]txn.ID, 3)
	for i := range ids {
		ids[i], err = m.Begin(txn.Options{})
		require.NoError(t, err)
	}
	_, err = m.Begin(txn.Options{})
	assert.ErrorIs(t, err, txn.ErrOverloaded, "MaxTxns")
	// Reads past the gateway-wide budget merge before anything fails.
	for i := range 300 {
		_, _, err := m.Get(ctx, ids[i%3], b(fmt.Sprintf("key%04d", i)))
		require.NoError(t, err)
	}
	assert.Positive(t, mergesOf(m, ids))
	assert.LessOrEqual(t, m.Stats().MemoryBytes, int64(10_000))
	err = m.Put(ids[0], b("big"), make([]byte, 9000))
	assert.ErrorIs(t, err, txn.ErrTooLarge)
	for _, id := range ids {
		require.NoError(t, m.Rollback(id))
	}
	assert.Equal(t, int64(0), m.Stats().MemoryBytes)
	assert.Positive(t, m.Stats().ReadSetMerges)
}

func mergesOf(m *txn.Manager, ids []txn.ID) uint64 {
	n := 0
	for _, id := range ids {
		_ = m.Do(id, func(tx *txn.Tx) error { n += tx.ReadSetMerges(); return nil })
	}
	return uint64(n)
}

func TestManagerConcurrentClients(t *testing.T) {
	s := newStore(t, memkv.Config{})
	m, err := txn.NewManager(s, txn.ManagerConfig{})
	require.NoError(t, err)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 100 {
				id, err := m.Begin(txn.Options{})
				if !assert.NoError(t, err) {
					return
				}
				k := b(fmt.Sprintf("c%d", i%5))
				_, _, _ = m.Get(ctx, id, k)
				_ = m.Put(id, k, b(fmt.Sprint(w)))
				if i%3 == 0 {
					_ = m.Rollback(id)
				} else {
					_, _ = m.Commit(ctx, id)
				}
			}
		})
	}
	wg.Go(func() {
		for range 50 {
			m.Reap(time.Now())
		}
	})
	wg.Wait()
	st := m.Stats()
	assert.Equal(t, uint64(400), st.Begun)
	assert.Equal(t, st.Begun, st.Committed+st.RolledBack+st.Failed+st.Unknown)
	assert.Equal(t, 0, st.Active)
	assert.Equal(t, int64(0), st.MemoryBytes)
}

// Begin publishes the transaction in the manager's map before it sets the
// Tx's finish hook (tx.onDone), outside any lock. A Reap running meanwhile
// rolls the transaction back through a hook it reads racily, possibly nil:
// the manager then never counts the rollback.
func TestManagerBeginRacesReap(t *testing.T) {
	s := newStore(t, memkv.Config{})
	m, err := txn.NewManager(s, txn.ManagerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
				m.Reap(time.Now().Add(time.Hour)) // everything held is expired at this now
			}
		}
	})
	for range 20000 {
		_, _ = m.Begin(txn.Options{})
	}
	close(stop)
	wg.Wait()
	m.Reap(time.Now().Add(time.Hour))
	st := m.Stats()
	if ended := st.Committed + st.RolledBack + st.Failed + st.Unknown; ended != st.Begun || st.ReapedIdle+st.ReapedAge != st.RolledBack {
		t.Errorf("begun %d, ended %d, rolled back %d, reaped %d", st.Begun, ended, st.RolledBack, st.ReapedIdle+st.ReapedAge)
	}
}

// slowEngine's reads take a while, as a large range read on a remote store
// can.
type slowEngine struct {
	txn.Engine
	delay time.Duration
}

func (e slowEngine) Get(ctx context.Context, version uint64, key []byte) ([]byte, bool, error) {
	time.Sleep(e.delay) // virtual time under synctest
	return e.Engine.Get(ctx, version, key)
}

// TestManagerIdleCountsFromTheEndOfAnOperation: a transaction is idle from
// the moment its last operation returned, not from when it started. An
// operation that ran longer than IdleTimeout must not leave its transaction
// to be reaped the instant it returns, while its client is still using it.
func TestManagerIdleCountsFromTheEndOfAnOperation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStore(t, memkv.Config{})
		m, err := txn.NewManager(slowEngine{s, 15 * time.Second}, txn.ManagerConfig{IdleTimeout: 10 * time.Second})
		require.NoError(t, err)
		id, err := m.Begin(txn.Options{})
		require.NoError(t, err)
		_, _, err = m.Get(ctx, id, b("k"))
		require.NoError(t, err)
		assert.Equal(t, 0, m.Reap(time.Now()), "used until just now")
		require.NoError(t, m.Put(id, b("k"), b("v")))
	})
}

// A commit made through Do (as a gateway batching its own calls does) is the
// same outcome as one made through Manager.Commit and counts the same: its
// conflict cause was counted only by Manager.Commit, so Failed grew while
// Conflicts did not.
func TestManagerCountsCommitCauseThroughDo(t *testing.T) {
	s := newStore(t, memkv.Config{})
	m, err := txn.NewManager(s, txn.ManagerConfig{})
	require.NoError(t, err)
	id, err := m.Begin(txn.Options{})
	require.NoError(t, err)
	_, _, err = m.Get(ctx, id, b("k"))
	require.NoError(t, err)
	require.NoError(t, m.Put(id, b("k"), b("a")))
	seed(t, s, "k", "other")
	err = m.Do(id, func(tx *txn.Tx) error { _, err := tx.Commit(ctx); return err })
	require.ErrorIs(t, err, txn.ErrConflict)
	_, err = m.Commit(ctx, id)
	require.ErrorIs(t, err, txn.ErrNotFound)
	assert.Equal(t, txn.ManagerStats{Begun: 1, Failed: 1, Conflicts: 1, ConflictsReadKey: 1}, m.Stats())
}
