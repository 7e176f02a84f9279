package txn

import (
	"context"
	"math/rand/v2"
	"reflect"
	"sync"
	"sync/atomic"
	"time"
)

// ManagerConfig tunes a [Manager]. The zero value is valid: every zero field
// means its documented default.
type ManagerConfig struct {
	// IdleTimeout reaps a transaction not used for this long (default 30s).
	IdleTimeout time.Duration
	// MaxAge reaps a transaction this old, used or not (default 5m).
	MaxAge time.Duration
	// MaxTxns bounds the transactions held (default 100,000); Begin past it
	// fails with ErrOverloaded.
	MaxTxns int
	// TxBudget is the memory budget of each transaction (Options.MemoryBudget
	// when that is zero; default 1 MiB).
	TxBudget int
	// TotalBudget bounds the memory of all transactions together (default
	// 1 GiB). A transaction growing past it first merges its read set, then
	// fails the operation with ErrTooLarge; Begin past it fails with
	// ErrOverloaded.
	TotalBudget int64
}

// validate reports the first field of a ManagerConfig out of range, named
// with its value, as an error wrapping [ErrInvalidConfig].
func (c ManagerConfig) validate() error {
	switch {
	case c.IdleTimeout < 0:
		return invalid("ManagerConfig.IdleTimeout %v is negative", c.IdleTimeout)
	case c.MaxAge < 0:
		return invalid("ManagerConfig.MaxAge %v is negative", c.MaxAge)
	case c.MaxTxns < 0:
		return invalid("ManagerConfig.MaxTxns %d is negative", c.MaxTxns)
	case c.TxBudget < 0:
		return invalid("ManagerConfig.TxBudget %d is negative", c.TxBudget)
	case c.TotalBudget < 0:
		return invalid("ManagerConfig.TotalBudget %d is negative", c.TotalBudget)
	}
	return nil
}

func (c ManagerConfig) withDefaults() ManagerConfig {
	if c.IdleTimeout == 0 {
		c.IdleTimeout = 30 * time.Second
	}
	if c.MaxAge == 0 {
		c.MaxAge = 5 * time.Minute
	}
	if c.MaxTxns == 0 {
		c.MaxTxns = 100_000
	}
	if c.TxBudget == 0 {
		c.TxBudget = 1 << 20
	}
	if c.TotalBudget == 0 {
		c.TotalBudget = 1 << 30
	}
	return c
}

// ID names a transaction held by a [Manager]. A Manager never hands out an
// id twice, and numbers from a random start (never 0), so that an id from
// another Manager, such as the one of a gateway process before a restart,
// is answered ErrNotFound instead of naming one of this one's transactions.
// Ids are consecutive, so not secrets: a gateway that serves many clients
// checks that an id is the caller's own.
type ID uint64

// Manager holds many transactions by id on behalf of thin clients, which
// send reads and writes tagged with the id; the gateway keeps the
// bookkeeping. Abandoned transactions are reaped lazily (on Begin) or by
// [Manager.Reap]; no goroutine runs in the background. Safe for concurrent
// use; the operations of one transaction are serialized.
type Manager struct {
	eng  Engine
	cfg  atomic.Pointer[ManagerConfig]
	acct account
	// epoch is read at NewManager with the monotonic clock: idle times are
	// offsets from it, so a step of the wall clock (NTP, an operator) does
	// not make every transaction idle at once, or none for hours.
	epoch time.Time

	mu       sync.Mutex // protects txns, next, lastReap
	txns     map[ID]*held
	next     ID
	lastReap time.Time

	st mcounters
}

type held struct {
	id       ID
	begun    time.Time
	lastUsed atomic.Int64 // nanoseconds since the manager's epoch
	inUse    atomic.Int32

	mu sync.Mutex // serializes operations; protects tx and ended
	tx *Tx
	// ended is set when the transaction finished or was reaped: an
	// operation that looked it up before and waited for the one that
	// ended it finds it gone, as a later one does.
	ended bool
}

// NewManager returns a manager of transactions on eng, or an error wrapping
// [ErrInvalidConfig] if eng is nil (or holds a nil pointer, map, slice, func
// or channel) or cfg is invalid.
func NewManager(eng Engine, cfg ManagerConfig) (*Manager, error) {
	// Every Begin would panic, far from the mistake.
	if eng == nil {
		return nil, invalid("nil Engine")
	}
	if isNil(eng) { // a *Store variable never assigned
		return nil, invalid("nil Engine (a nil %T)", eng)
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	m := &Manager{eng: eng, txns: map[ID]*held{}, epoch: time.Now(), next: ID(rand.Uint64())}
	if err := m.SetConfig(cfg); err != nil {
		return nil, err
	}
	return m, nil
}

// SetConfig swaps the tunables atomically; they apply to later Begins and
// reaps (a held transaction keeps its budget). For an invalid cfg it returns
// an error wrapping [ErrInvalidConfig] and changes nothing.
func (m *Manager) SetConfig(cfg ManagerConfig) error {
	if err := cfg.validate(); err != nil {
		return err
	}
	c := cfg.withDefaults()
	m.cfg.Store(&c)
	m.acct.limit.Store(c.TotalBudget)
	return nil
}

// Begin starts a transaction and returns its id. It reaps expired
// transactions first when due (a quarter of min(IdleTimeout, MaxAge) after
// the last reap, or when that reap's now is later than the clock), and
// fails with ErrOverloaded at MaxTxns or over the total memory budget.
func (m *Manager) Begin(opt Options) (ID, error) {
	// Bad input first: under overload an invalid Options was answered
	// ErrOverloaded, and a client retried what could never succeed.
	if err := opt.validate(); err != nil {
		return 0, err
	}
	cfg := m.cfg.Load()
	if opt.MemoryBudget == 0 {
		opt.MemoryBudget = cfg.TxBudget
	}
	now := time.Now()
	m.mu.Lock()
	// A mark ahead of now (Reap called with a later now, a clock set back)
	// is due too: else lazy reaping would stop until the clock passed it.
	due := now.Before(m.lastReap) || now.Sub(m.lastReap) >= min(cfg.IdleTimeout, cfg.MaxAge)/4
	full := len(m.txns) >= cfg.MaxTxns
	m.mu.Unlock()
	if due && m.Reap(now) > 0 {
		full = false
	}
	// Refused before Begin builds a transaction: under overload a refusal
	// costs no allocation and no read of the engine's version.
	if full || m.acct.over() {
		m.st.overloaded.Add(1)
		return 0, ErrOverloaded
	}
	tx, err := Begin(m.eng, opt)
	if err != nil {
		return 0, err
	}
	// Its idempotency key, accounted only if it fits the total budget (a
	// key that does not fit must not make the account look full to others).
	if tx.mem > 0 && !m.acct.tryAdd(tx.mem) {
		tx.Rollback() // no account yet: nothing to give back; buffers to the pool
		m.st.overloaded.Add(1)
		return 0, ErrOverloaded
	}
	tx.acct = &m.acct
	m.mu.Lock()
	if len(m.txns) >= cfg.MaxTxns { // filled since the check above
		m.mu.Unlock()
		tx.Rollback() // gives the key's bytes back; its buffers go back to the pool
		m.st.overloaded.Add(1)
		return 0, ErrOverloaded
	}
	m.next++
	if m.next == 0 { // 0 is the id of no transaction, Begin's on error
		m.next++
	}
	h := &held{id: m.next, begun: now, tx: tx}
	h.lastUsed.Store(int64(now.Sub(m.epoch)))
	tx.onDone = func(tx *Tx) { m.done(h, tx) } // before h is visible to Reap and Do
	m.st.begun.Add(1)
	m.txns[h.id] = h
	m.mu.Unlock()
	return h.id, nil
}

// Do runs fn on transaction id, serialized with its other operations, and
// marks it used. It returns ErrNotFound if id finished or was reaped.
//
// fn runs with the transaction's lock held: it must not call m's methods for
// id (Get, Put, Commit, Do, ... wait for fn to return, so the call never
// returns), and must not keep tx after it returns (the transaction may be
// committed, rolled back or reaped then, and its buffers reused). Use tx
// inside fn instead.
//
// The wait for an operation in progress on id takes no context, and Reap
// skips a transaction in use: a Commit (or Get) whose context has no
// deadline, on an engine that never answers, holds the transaction and
// blocks every later operation on it for as long. Give the operations of a
// held transaction contexts with deadlines.
func (m *Manager) Do(id ID, fn func(tx *Tx) error) error {
	m.mu.Lock()
	h := m.txns[id]
	if h != nil {
		h.inUse.Add(1)
	}
	m.mu.Unlock()
	if h == nil {
		return ErrNotFound
	}
	defer h.inUse.Add(-1)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ended {
		return ErrNotFound
	}
	err := fn(h.tx)
	// Idle time counts from the end of the operation: one that ran longer
	// than IdleTimeout must not leave its transaction to be reaped at once.
	h.lastUsed.Store(int64(time.Since(m.epoch)))
	return err
}

// Get is [Tx.Get] on transaction id.
func (m *Manager) Get(ctx context.Context, id ID, key []byte) (v []byte, ok bool, err error) {
	err = m.Do(id, func(tx *Tx) error { v, ok, err = tx.Get(ctx, key); return err })
	return v, ok, err
}

// GetRange is [Tx.GetRange] on transaction id.
func (m *Manager) GetRange(ctx context.Context, id ID, begin, end []byte, limit int, reverse bool) (kvs []KV, err error) {
	err = m.Do(id, func(tx *Tx) error { kvs, err = tx.GetRange(ctx, begin, end, limit, reverse); return err })
	return kvs, err
}

// Put is [Tx.Put] on transaction id.
func (m *Manager) Put(id ID, key, value []byte) error {
	return m.Do(id, func(tx *Tx) error { return tx.Put(key, value) })
}

// Delete is [Tx.Delete] on transaction id.
func (m *Manager) Delete(id ID, key []byte) error {
	return m.Do(id, func(tx *Tx) error { return tx.Delete(key) })
}

// Commit is [Tx.Commit] on transaction id; the manager forgets id after it,
// unless ctx had ended before the call: that commit was not sent, and the
// transaction stays held and active (Commit again with a live context, or
// Rollback; else it holds its memory until it is reaped).
func (m *Manager) Commit(ctx context.Context, id ID) (v uint64, err error) {
	err = m.Do(id, func(tx *Tx) error { v, err = tx.Commit(ctx); return err })
	return v, err
}

// Rollback is [Tx.Rollback] on transaction id; the manager forgets id.
func (m *Manager) Rollback(id ID) error {
	return m.Do(id, func(tx *Tx) error { tx.Rollback(); return nil })
}

// Reap rolls back the transactions idle for IdleTimeout or older than
// MaxAge at now, except those in the middle of an operation, and returns how
// many it reaped. Begin calls it lazily; call it from a ticker to bound
// memory when Begins are rare.
func (m *Manager) Reap(now time.Time) int {
	cfg := m.cfg.Load()
	var victims []*held
	var idle []bool
	m.mu.Lock()
	m.lastReap = now
	for id, h := range m.txns {
		if h.inUse.Load() > 0 {
			continue
		}
		isIdle := now.Sub(m.epoch)-time.Duration(h.lastUsed.Load()) >= cfg.IdleTimeout
		if isIdle || now.Sub(h.begun) >= cfg.MaxAge {
			delete(m.txns, id)
			victims = append(victims, h)
			idle = append(idle, isIdle)
		}
	}
	m.mu.Unlock()
	for i, h := range victims {
		h.mu.Lock()
		h.ended = true
		h.tx.Rollback()
		h.mu.Unlock()
		if idle[i] {
			m.st.reapedIdle.Add(1)
		} else {
			m.st.reapedAge.Add(1)
		}
	}
	return len(victims)
}

// Len returns the number of transactions held.
func (m *Manager) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.txns)
}

// done is the transactions' finish hook: it forgets h and counts the
// outcome, and a failed commit's cause, however the transaction finished
// (Manager.Commit, or Tx.Commit inside Do). It runs under h.mu (inside Do or
// Reap).
func (m *Manager) done(h *held, tx *Tx) {
	h.ended = true
	m.mu.Lock()
	delete(m.txns, h.id)
	m.mu.Unlock()
	m.st.readSetMerges.Add(uint64(tx.merges))
	switch tx.state {
	case committed:
		m.st.committed.Add(1)
	case rolledBack:
		m.st.rolledBack.Add(1)
	case unknown:
		m.st.unknown.Add(1)
	default:
		m.st.failed.Add(1)
	}
	if tx.commitErr != nil {
		m.countCommitError(tx.commitErr)
	}
}

// isNil reports whether v holds a nil pointer, map, slice, func or channel.
func isNil(v any) bool {
	switch r := reflect.ValueOf(v); r.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan, reflect.UnsafePointer:
		return r.IsNil()
	}
	return false
}
