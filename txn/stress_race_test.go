package txn_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

const bankAccounts, bankStart = 8, 100

func acct(i int) []byte { return []byte(fmt.Sprintf("acct/%02d", i)) }

func seedBank(t *testing.T, s *memkv.Store) {
	for i := range bankAccounts {
		seed(t, s, string(acct(i)), strconv.Itoa(bankStart))
	}
}

func readInt(tx *txn.Tx, k []byte) (int, error) {
	v, ok, err := tx.Get(ctx, k)
	if err != nil || !ok {
		return 0, err
	}
	return strconv.Atoi(string(v))
}

// transfer moves amt from account a to account c, refusing an overdraft
// (not an error: the transaction then commits without writes); a == c
// moves nothing.
func transfer(tx *txn.Tx, a, c, amt int) error {
	if a == c {
		return nil
	}
	if tx.Isolation() == txn.ReadCommitted {
		// Its reads are not validated: the explicit conflicts make the
		// read-modify-write safe.
		for _, k := range [][]byte{acct(a), acct(c)} {
			if err := tx.AddReadConflictKey(k); err != nil {
				return err
			}
		}
	}
	x, err := readInt(tx, acct(a))
	if err != nil {
		return err
	}
	y, err := readInt(tx, acct(c))
	if err != nil {
		return err
	}
	runtime.Gosched() // let another transfer interleave
	if x < amt {
		return nil
	}
	if err := tx.Put(acct(a), []byte(strconv.Itoa(x-amt))); err != nil {
		return err
	}
	return tx.Put(acct(c), []byte(strconv.Itoa(y+amt)))
}

// bankTotal sums the accounts in one transaction (a snapshot).
func bankTotal(tx *txn.Tx) (int, error) {
	kvs, err := tx.GetRange(ctx, []byte("acct/"), []byte("acct0"), 0, false)
	if err != nil {
		return 0, err
	}
	sum := 0
	for _, kv := range kvs {
		n, err := strconv.Atoi(string(kv.Value))
		if err != nil {
			return 0, err
		}
		sum += n
	}
	return sum, nil
}

func storeTotal(t *testing.T, s *memkv.Store) int {
	tx, err := txn.Begin(s, txn.Options{})
	require.NoError(t, err)
	defer tx.Rollback()
	sum, err := bankTotal(tx)
	require.NoError(t, err)
	return sum
}

// TestStressRunBank: concurrent conflicting transfers through Run at the
// two levels that prevent lost updates, with auditors reading the total in
// read-only transactions meanwhile: the total is conserved in every
// snapshot and at the end, and every transfer Run reported is applied.
func TestStressRunBank(t *testing.T) {
	for _, iso := range []txn.Isolation{txn.Serializable, txn.Snapshot, txn.ReadCommitted} {
		t.Run(iso.String(), func(t *testing.T) {
			s := newStore(t, memkv.Config{})
			seedBank(t, s)
			// A ledger key per worker counts the transfers it committed,
			// in the same transaction: no lost update means it equals the
			// Runs that returned success.
			const workers, each = 4, 150
			pol := txn.RetryPolicy{MaxAttempts: 10_000, MaxElapsed: time.Minute, BaseBackoff: time.Microsecond, MaxBackoff: 50 * time.Microsecond}
			var wg sync.WaitGroup
			var ok [workers]int
			for w := range workers {
				wg.Go(func() {
					r := rand.New(rand.NewPCG(uint64(w), 1))
					led := []byte(fmt.Sprintf("ledger/%d", w))
					for range each {
						a, c := r.IntN(bankAccounts), r.IntN(bankAccounts)
						_, err := txn.Run(ctx, s, txn.Options{Isolation: iso}, pol, func(tx *txn.Tx) error {
							if err := transfer(tx, a, c, 1+r.IntN(30)); err != nil {
								return err
							}
							n, err := readInt(tx, led)
							if err != nil {
								return err
							}
							return tx.Put(led, []byte(strconv.Itoa(n+1)))
						})
						if assert.NoError(t, err) {
							ok[w]++
						}
					}
				})
			}
			stop := make(chan struct{})
			var audits atomic.Int64
			var aw sync.WaitGroup
			aw.Go(func() {
				for {
					select {
					case <-stop:
						return
					default:
					}
					_, err := txn.Run(ctx, s, txn.Options{Isolation: iso}, pol, func(tx *txn.Tx) error {
						sum, err := bankTotal(tx)
						if err == nil && sum != bankAccounts*bankStart {
							return fmt.Errorf("a snapshot's total is %d", sum)
						}
						return err
					})
					if !assert.NoError(t, err) {
						return
					}
					audits.Add(1)
				}
			})
			wg.Wait()
			close(stop)
			aw.Wait()
			assert.Equal(t, bankAccounts*bankStart, storeTotal(t, s), "total conserved")
			for w := range workers {
				v, _, err := s.Get(ctx, s.ReadVersion(), []byte(fmt.Sprintf("ledger/%d", w)))
				require.NoError(t, err)
				assert.Equal(t, strconv.Itoa(ok[w]), string(v), "worker %d: no lost or doubled transfer", w)
			}
			t.Logf("audits %d, engine %+v", audits.Load(), s.Stats())
		})
	}
}

// tally is what the clients of a Manager saw.
type tally struct {
	begun, committed, conflicts, tooOld, rolledBack, unknown, already atomic.Uint64
}

// commit counts a Commit's outcome err and reports whether it was counted
// (an error of no counted kind is the caller's to judge).
func (tl *tally) commit(err error) bool {
	for _, c := range []struct {
		is error
		n  *atomic.Uint64
	}{{txn.ErrAlreadyCommitted, &tl.already}, {txn.ErrCommitUnknown, &tl.unknown},
		{txn.ErrConflict, &tl.conflicts}, {txn.ErrTooOld, &tl.tooOld}} {
		if errors.Is(err, c.is) {
			c.n.Add(1)
			return true
		}
	}
	if err == nil {
		tl.committed.Add(1)
	}
	return err == nil
}

// managerClient runs n transfers through m, each ended by a commit, a
// rollback, or abandoned to the reaper, counting what it was told.
func managerClient(t *testing.T, m *txn.Manager, seedN uint64, n int, tl *tally) {
	r := rand.New(rand.NewPCG(seedN, 2))
	for range n {
		id, err := m.Begin(txn.Options{})
		if !assert.NoError(t, err) {
			return
		}
		tl.begun.Add(1)
		a, c := r.IntN(bankAccounts), r.IntN(bankAccounts)
		err = m.Do(id, func(tx *txn.Tx) error { return transfer(tx, a, c, 1+r.IntN(30)) })
		if errors.Is(err, txn.ErrNotFound) {
			continue // reaped
		}
		if !assert.NoError(t, err) {
			return
		}
		switch p := r.IntN(10); {
		case p == 0:
			continue // abandoned
		case p <= 2:
			err = m.Rollback(id)
			if err == nil {
				tl.rolledBack.Add(1)
			}
		default:
			_, err = m.Commit(ctx, id)
			tl.commit(err)
		}
		if err != nil && !errors.Is(err, txn.ErrNotFound) && !txn.Retryable(err) {
			t.Errorf("unexpected error %v", err)
			return
		}
	}
}

// TestStressManagerStats: many goroutines Begin, Do, Commit and Rollback on
// one Manager while another reaps; after quiescence the Stats equal what
// the clients were told, the gauges are zero, and the bank is conserved.
func TestStressManagerStats(t *testing.T) {
	s := newStore(t, memkv.Config{})
	seedBank(t, s)
	m, err := txn.NewManager(s, txn.ManagerConfig{})
	require.NoError(t, err)
	var tl tally
	var wg sync.WaitGroup
	const workers = 6
	for w := range workers {
		wg.Go(func() { managerClient(t, m, uint64(w), 400, &tl) })
	}
	stop := make(chan struct{})
	var rw sync.WaitGroup
	rw.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			// Now far ahead: everything not in an operation is expired.
			m.Reap(time.Now().Add(time.Hour))
			_ = m.Stats()
		}
	})
	wg.Wait()
	close(stop)
	rw.Wait()
	m.Reap(time.Now().Add(time.Hour))
	st := m.Stats()
	reaped := st.ReapedIdle + st.ReapedAge
	assert.Equal(t, tl.begun.Load(), st.Begun)
	assert.Equal(t, tl.committed.Load(), st.Committed)
	assert.Equal(t, tl.conflicts.Load(), st.Conflicts)
	assert.Equal(t, tl.tooOld.Load(), st.TooOld)
	assert.Equal(t, tl.conflicts.Load()+tl.tooOld.Load(), st.Failed)
	assert.Equal(t, tl.rolledBack.Load()+reaped, st.RolledBack)
	assert.Equal(t, st.Begun, st.Committed+st.RolledBack+st.Failed+st.Unknown)
	assert.Zero(t, st.Active)
	assert.Zero(t, st.MemoryBytes)
	assert.Equal(t, s.Stats().Conflicts, st.Conflicts, "the engine's count")
	assert.Equal(t, bankAccounts*bankStart, storeTotal(t, s))
	t.Logf("%+v", st)
}

// dropEvery returns a DropReply hook losing the reply of every nth applied
// commit with an idempotency key, and the count of replies it lost.
func dropEvery(n uint64) (func(*memkv.CommitRequest) bool, *atomic.Uint64) {
	var seen, dropped atomic.Uint64
	return func(req *memkv.CommitRequest) bool {
		if len(req.IdempotencyKey) == 0 || seen.Add(1)%n != 0 {
			return false
		}
		dropped.Add(1)
		return true
	}, &dropped
}

// TestStressRunIdempotentRetries: concurrent conflicting transfers through
// Run with an idempotency key each, on a store that loses the reply of
// every third applied commit: every Run succeeds, and each is applied
// exactly once (the ledger counts them, the total is conserved).
func TestStressRunIdempotentRetries(t *testing.T) {
	drop, dropped := dropEvery(3)
	s := newStore(t, memkv.Config{Faults: memkv.Faults{DropReply: drop}})
	seedBank(t, s)
	pol := txn.RetryPolicy{MaxAttempts: 10_000, MaxElapsed: time.Minute, BaseBackoff: time.Microsecond, MaxBackoff: 50 * time.Microsecond}
	const workers, each = 4, 150
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 3))
			for i := range each {
				a, c, amt := r.IntN(bankAccounts), r.IntN(bankAccounts), 1+r.IntN(30)
				key := []byte(fmt.Sprintf("xfer/%d/%d", w, i))
				_, err := txn.Run(ctx, s, txn.Options{IdempotencyKey: key}, pol, func(tx *txn.Tx) error {
					if err := transfer(tx, a, c, amt); err != nil {
						return err
					}
					n, err := readInt(tx, []byte("ledger"))
					if err != nil {
						return err
					}
					return tx.Put([]byte("ledger"), []byte(strconv.Itoa(n+1)))
				})
				if !assert.NoError(t, err) {
					return
				}
			}
		})
	}
	wg.Wait()
	v, _, err := s.Get(ctx, s.ReadVersion(), []byte("ledger"))
	require.NoError(t, err)
	assert.Equal(t, strconv.Itoa(workers*each), string(v), "each transfer applied once")
	assert.Equal(t, bankAccounts*bankStart, storeTotal(t, s))
	assert.Positive(t, dropped.Load())
	t.Logf("dropped %d, deduplicated %d", dropped.Load(), s.Stats().AlreadyCommitted)
}

// TestStressManagerIdempotentRetries: clients of a Manager retry a commit
// of unknown outcome in a new transaction under the same idempotency key;
// each transfer is applied once, and the Stats count the unknown outcomes
// and the deduplicated retries as committed.
func TestStressManagerIdempotentRetries(t *testing.T) {
	drop, dropped := dropEvery(3)
	s := newStore(t, memkv.Config{Faults: memkv.Faults{DropReply: drop}})
	seedBank(t, s)
	m, err := txn.NewManager(s, txn.ManagerConfig{})
	require.NoError(t, err)
	const workers, each = 4, 150
	var tl tally
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() { assert.NoError(t, idemClient(m, w, each, &tl)) })
	}
	wg.Wait()
	v, _, err := s.Get(ctx, s.ReadVersion(), []byte("ledger"))
	require.NoError(t, err)
	assert.Equal(t, strconv.Itoa(workers*each), string(v), "each transfer applied once")
	assert.Equal(t, bankAccounts*bankStart, storeTotal(t, s))
	st := m.Stats()
	assert.Equal(t, tl.begun.Load(), st.Begun)
	assert.Equal(t, dropped.Load(), tl.unknown.Load())
	assert.Equal(t, tl.unknown.Load(), st.Unknown)
	assert.Equal(t, tl.committed.Load()+tl.already.Load(), st.Committed)
	assert.Equal(t, tl.conflicts.Load(), st.Conflicts)
	assert.Equal(t, st.Begun, st.Committed+st.RolledBack+st.Failed+st.Unknown)
	assert.Equal(t, s.Stats().AlreadyCommitted, tl.already.Load())
	assert.Zero(t, st.Active)
	assert.Zero(t, st.MemoryBytes)
	t.Logf("%+v", st)
}

// idemClient commits n transfers through m, each retried in a new
// transaction under its idempotency key until it commits or the engine
// answers that it had.
func idemClient(m *txn.Manager, w, n int, tl *tally) error {
	r := rand.New(rand.NewPCG(uint64(w), 4))
	for i := range n {
		a, c, amt := r.IntN(bankAccounts), r.IntN(bankAccounts), 1+r.IntN(30)
		opt := txn.Options{IdempotencyKey: []byte(fmt.Sprintf("xfer/%d/%d", w, i))}
		for attempt := 0; ; attempt++ {
			if attempt == 10_000 {
				return fmt.Errorf("transfer %d/%d: no end after %d attempts", w, i, attempt)
			}
			id, err := m.Begin(opt)
			if err != nil {
				return err
			}
			tl.begun.Add(1)
			err = m.Do(id, func(tx *txn.Tx) error {
				if err := transfer(tx, a, c, amt); err != nil {
					return err
				}
				n, err := readInt(tx, []byte("ledger"))
				if err != nil {
					return err
				}
				return tx.Put([]byte("ledger"), []byte(strconv.Itoa(n+1)))
			})
			if err != nil {
				return err
			}
			_, err = m.Commit(ctx, id)
			if !tl.commit(err) || errors.Is(err, txn.ErrTooOld) {
				return err // no snapshot here grows too old: anything else is a failure
			}
			if err == nil || errors.Is(err, txn.ErrAlreadyCommitted) {
				break
			}
			// unknown or conflict: retried under the same key
		}
	}
	return nil
}
