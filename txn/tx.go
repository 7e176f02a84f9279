package txn

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"
)

type state uint8

const (
	active state = iota + 1
	committed
	rolledBack
	failed
	unknown // commit outcome unknown
)

// Tx is one transaction: a snapshot read version, the reads to validate, and
// buffered writes that reads see (read-your-writes). Nothing reaches the
// engine before [Tx.Commit], which sends one [CommitRequest].
//
// A Tx is not safe for concurrent use (the [Manager] serializes the
// operations of each transaction it holds). Slices it returns (values, keys)
// are shared with the transaction or the engine and must not be modified.
type Tx struct {
	eng   Engine
	opt   Options
	rv    uint64
	state state
	cv    uint64 // commit version

	c *core // the buffers; nil once the transaction is done

	mem   int // bytes accounted against the budgets
	limit int // the per-transaction budget, MaxInt for none

	hasDeadline bool
	acct        *account  // gateway-wide budget, or nil
	merges      int       // read-set merges forced by the budget
	commitErr   error     // the failed commit's error, for onDone
	onDone      func(*Tx) // manager hook, called once when the tx finishes
}

// core holds a transaction's reusable buffers. When the transaction
// finishes they go back to corePool (emptied), so a steady stream of
// transactions does not allocate them again. Arena chunks are reused only
// when no slice of them was handed to the caller (see writes).
type core struct {
	wb writes

	rbuf    []byte   // point reads to validate, concatenated (never handed out)
	rends   []int    // end offset in rbuf of each point read
	rranges [][]byte // range reads to validate, flattened pairs
	wranges [][]byte // explicit write-conflict ranges, flattened pairs
	// validate is set by an explicit read conflict: Commit then goes to the
	// engine even without writes, so that the conflict is checked.
	validate bool

	req     CommitRequest // reused by Request
	scratch [][]byte      // reused engine scan buffer
}

var corePool = sync.Pool{New: func() any { return new(core) }}

// maxPooled bounds the entries of buffers kept for reuse, so that one huge
// transaction does not pin its buffers forever.
const maxPooled = 1 << 14

// maxPooledBytes bounds the bytes of the point-read buffer kept for reuse,
// as the arena keeps one chunk of at most 64 KiB.
const maxPooledBytes = 64 << 10

// poolable reports whether every buffer of c is small enough to be kept for
// the next transaction: one that cleared 100,000 ranges without a lookup
// (so without growing cnodes), or recorded as many reads or savepoints,
// would otherwise pin those buffers in the pool, and reset would clear
// their whole capacity on every reuse.
func (c *core) poolable() bool {
	w := &c.wb
	for _, n := range [...]int{
		cap(w.ents), cap(w.cnodes), len(w.idx.slots) / 2, cap(w.chunks),
		cap(w.clears) / 2, cap(w.sorted), cap(w.undo), cap(w.sps),
		cap(c.rends), cap(c.rranges) / 2, cap(c.wranges) / 2, cap(c.scratch),
		cap(c.req.ReadKeys), cap(c.req.ReadRanges) / 2, cap(c.req.Sets) / 2,
	} {
		if n > maxPooled {
			return false
		}
	}
	return cap(c.rbuf) <= maxPooledBytes
}

// reset empties c for reuse, dropping every reference into the arena and
// the engine.
func (c *core) reset() {
	w := &c.wb
	w.idx.reset()
	w.ents = w.ents[:0]
	var keep []byte // reused only if no caller can hold a slice of it
	if n := len(w.chunks); n > 0 && !w.handed && cap(w.chunks[n-1]) <= 64<<10 {
		keep = w.chunks[n-1][:0]
	}
	clear(w.chunks[:cap(w.chunks)])
	w.chunks, w.handed = w.chunks[:0], false
	if keep != nil {
		w.chunks = append(w.chunks, keep)
	}
	clear(w.clears[:cap(w.clears)])
	w.clears = w.clears[:0]
	w.cnodes, w.croot = w.cnodes[:0], 0
	w.sorted, w.sortedOK = w.sorted[:0], false
	w.undo, w.sps, w.gen = w.undo[:0], w.sps[:0], 0
	c.rbuf, c.rends = c.rbuf[:0], c.rends[:0]
	for _, s := range []*[][]byte{&c.rranges, &c.wranges, &c.scratch,
		&c.req.ReadKeys, &c.req.ReadRanges, &c.req.Sets} {
		clear((*s)[:cap(*s)])
		*s = (*s)[:0]
	}
	c.req.Clears, c.req.WriteRanges, c.req.IdempotencyKey = nil, nil, nil
	c.validate = false
}

// KV is one key and its value.
type KV struct {
	Key, Value []byte
}

// entryOverhead is the bytes accounted per buffered write or read record on
// top of its key and value bytes.
const entryOverhead = 48

// Begin starts a transaction reading at eng's current version. Options out of
// range are refused with an error wrapping [ErrInvalidConfig], an
// IdempotencyKey longer than the MemoryBudget with one wrapping [ErrTooLarge].
func Begin(eng Engine, opt Options) (*Tx, error) {
	if err := opt.validate(); err != nil {
		return nil, err
	}
	// The key's copy is held until the transaction ends: charged to its
	// budget (and, under a Manager, the gateway-wide one) as a write is.
	if b := opt.withDefaults().MemoryBudget; b > 0 && len(opt.IdempotencyKey) > b {
		return nil, fmt.Errorf("%w: idempotency key of %d bytes, over the memory budget of %d",
			ErrTooLarge, len(opt.IdempotencyKey), b)
	}
	tx := &Tx{eng: eng, opt: opt.withDefaults(), state: active, c: corePool.Get().(*core),
		hasDeadline: !opt.Deadline.IsZero(), limit: math.MaxInt}
	if tx.opt.MemoryBudget > 0 {
		tx.limit = tx.opt.MemoryBudget
	}
	// A copy of its own: the caller's buffer may serve other requests
	// before Commit sends the key. An empty key is no key (nil), as the
	// engine and Run read it: a read-only transaction then commits from
	// its snapshot instead of asking the engine to validate its reads.
	tx.opt.IdempotencyKey = nil
	if len(opt.IdempotencyKey) > 0 {
		tx.opt.IdempotencyKey = bytes.Clone(opt.IdempotencyKey)
		tx.mem = len(opt.IdempotencyKey)
	}
	tx.rv = eng.ReadVersion()
	return tx, nil
}

// ReadVersion returns the version the transaction reads at (for
// ReadCommitted, the version at Begin).
func (tx *Tx) ReadVersion() uint64 { return tx.rv }

// Isolation returns the transaction's isolation level.
func (tx *Tx) Isolation() Isolation { return tx.opt.Isolation }

// CommitVersion returns the version the transaction committed at, or 0.
func (tx *Tx) CommitVersion() uint64 { return tx.cv }

// MemoryUsed returns the bytes accounted against the memory budgets: 0 once
// the transaction has ended (its buffers are released).
func (tx *Tx) MemoryUsed() int { return tx.mem }

// ReadSetMerges returns how many times the budget forced the read set to
// merge into wider ranges.
func (tx *Tx) ReadSetMerges() int { return tx.merges }

// Get returns the value of key: the transaction's own write if any, else the
// engine's value at the read version. Under Serializable the read is
// recorded for validation, unless the transaction's own write or range
// delete of key answered it: that result depends on no other transaction,
// so it adds no conflict (FoundationDB's read-your-writes does the same).
func (tx *Tx) Get(ctx context.Context, key []byte) ([]byte, bool, error) {
	return tx.get(ctx, key, tx.opt.Isolation == Serializable)
}

func (tx *Tx) get(ctx context.Context, key []byte, record bool) ([]byte, bool, error) {
	if err := tx.check(ctx); err != nil {
		return nil, false, err
	}
	if v, del, ok := tx.c.wb.lookup(key); ok {
		tx.c.wb.handed = tx.c.wb.handed || !del
		return v, !del, nil
	}
	if tx.c.wb.cleared(key) {
		return nil, false, nil
	}
	if record {
		if err := tx.recordKey(key); err != nil {
			return nil, false, err
		}
	}
	for try := 0; ; try++ {
		v, ok, err := tx.eng.Get(ctx, tx.readVersion(), key)
		if err == nil {
			return v, ok, nil
		}
		if err = classify(err); !tx.retryRead(err, try) {
			return nil, false, tx.fail(err)
		}
	}
}

// Put buffers key = value. A nil value is stored as empty. A key longer than
// [MaxKeySize], a value longer than [MaxValueSize], a new key past
// [MaxWrites], or a write over the memory budget is refused with an error
// wrapping ErrTooLarge; the transaction stays as it was, and usable.
func (tx *Tx) Put(key, value []byte) error {
	if err := tx.checkOp(); err != nil {
		return err
	}
	p, err := tx.c.wb.locate(key, value)
	if err != nil {
		return err
	}
	if err := tx.charge(tx.c.wb.cost(p, key, value)); err != nil {
		return err
	}
	tx.c.wb.put(p, key, value, false)
	return nil
}

// Delete buffers the deletion of key. It is refused as [Tx.Put] is.
func (tx *Tx) Delete(key []byte) error {
	if err := tx.checkOp(); err != nil {
		return err
	}
	p, err := tx.c.wb.locate(key, nil)
	if err != nil {
		return err
	}
	if err := tx.charge(tx.c.wb.cost(p, key, nil)); err != nil {
		return err
	}
	tx.c.wb.put(p, key, nil, true)
	return nil
}

// DeleteRange buffers the deletion of every key in [begin, end) (nil end: no
// upper bound), including keys the transaction wrote before. An empty or
// inverted range (end not after begin) deletes no key and adds nothing.
// While a savepoint is open, each buffered write it deletes is charged an
// undo record, as an overwrite is.
func (tx *Tx) DeleteRange(begin, end []byte) error {
	if err := tx.checkOp(); err != nil {
		return err
	}
	if emptyRange(begin, end) {
		return nil
	}
	n := len(begin) + len(end) + entryOverhead
	if len(tx.c.wb.sps) > 0 {
		n += entryOverhead * tx.c.wb.liveIn(begin, end) // their undo records
	}
	if err := tx.charge(n); err != nil {
		return err
	}
	tx.c.wb.clearRange(begin, end)
	return nil
}

// AddReadConflictKey makes the commit fail if key was written after the read
// version, as if the transaction had read it (at any isolation level).
// Refused over the memory budget (an error wrapping [ErrTooLarge]), it leaves
// the transaction as it was.
func (tx *Tx) AddReadConflictKey(key []byte) error {
	if err := tx.checkOp(); err != nil {
		return err
	}
	// Only once recorded: a refusal (ErrTooLarge) leaves the transaction
	// as it was, a read-only one still committing from its snapshot.
	if err := tx.recordKey(key); err != nil {
		return err
	}
	tx.c.validate = true
	return nil
}

// AddReadConflictRange is AddReadConflictKey for [begin, end) (nil end: no
// upper bound). An empty or inverted range (end not after begin) covers no
// key and adds nothing.
func (tx *Tx) AddReadConflictRange(begin, end []byte) error {
	if err := tx.checkOp(); err != nil {
		return err
	}
	if emptyRange(begin, end) {
		return nil
	}
	if err := tx.recordRange(begin, end); err != nil {
		return err
	}
	tx.c.validate = true
	return nil
}

// AddWriteConflictRange makes transactions that read [begin, end) and commit
// after this one conflict, as if it had been written. Under [Snapshot] it
// also takes part in first committer wins, as a write does: the commit fails
// if a write to the range committed after the read version. A nil end means
// no upper bound; an empty or inverted range (end not after begin) covers no
// key and adds nothing.
func (tx *Tx) AddWriteConflictRange(begin, end []byte) error {
	if err := tx.checkOp(); err != nil {
		return err
	}
	if emptyRange(begin, end) {
		return nil
	}
	if err := tx.charge(len(begin) + len(end) + entryOverhead); err != nil {
		return err
	}
	tx.c.wranges = append(tx.c.wranges, bytes.Clone(nonNil(begin)), bytes.Clone(end))
	return nil
}

// AddWriteConflictKey is AddWriteConflictRange for one key.
func (tx *Tx) AddWriteConflictKey(key []byte) error {
	return tx.AddWriteConflictRange(key, keyAfter(key))
}

// Snapshot returns a view whose reads see the transaction's writes but are
// not recorded for validation: use it for reads whose staleness is harmless
// (the commit then cannot fail because of them).
func (tx *Tx) Snapshot() SnapshotReader { return SnapshotReader{tx} }

// SnapshotReader reads without recording conflicts. See [Tx.Snapshot].
type SnapshotReader struct{ tx *Tx }

// Get is [Tx.Get] without a read conflict.
func (s SnapshotReader) Get(ctx context.Context, key []byte) ([]byte, bool, error) {
	return s.tx.get(ctx, key, false)
}

// GetRange is [Tx.GetRange] without a read conflict.
func (s SnapshotReader) GetRange(ctx context.Context, begin, end []byte, limit int, reverse bool) ([]KV, error) {
	return s.tx.getRange(ctx, begin, end, limit, reverse, false)
}

// Commit sends the transaction's reads and writes to the engine. On success
// it returns the commit version. Errors: *ConflictError, ErrTooOld,
// ErrTooLarge, ErrTransient (retry the transaction), ErrCommitUnknown (do not
// retry blindly), ErrAlreadyCommitted (an earlier attempt with the same
// idempotency key committed: done), ErrDone, ErrDeadline, or a context error.
// If ctx had ended before the call, the error matches ctx.Err(), says that the
// commit was not sent, and does not match ErrCommitUnknown; the transaction
// stays active (Commit again with a live context, or Rollback).
// A transaction without writes commits without calling the engine (its reads
// come from one snapshot) unless it added explicit read conflicts
// ([Tx.AddReadConflictKey], [Tx.AddReadConflictRange]), which the engine
// checks, or has a non-empty Options.IdempotencyKey: the engine then
// validates its reads too (memkv records no key for a commit without
// writes, so the retry of a read-only one is validated again, not answered
// with ErrAlreadyCommitted).
func (tx *Tx) Commit(ctx context.Context) (uint64, error) {
	if err := tx.checkOp(); err != nil {
		return 0, err
	}
	if err := ctx.Err(); err != nil {
		// The bare context error read like a commit cut short in the
		// engine, whose outcome is unknown: this one was never sent.
		return 0, fmt.Errorf("txn: commit not sent, the context had ended: %w", err)
	}
	if tx.c.wb.empty() && len(tx.c.wranges) == 0 && !tx.c.validate && tx.opt.IdempotencyKey == nil {
		tx.finish(committed)
		tx.cv = tx.rv
		return tx.rv, nil
	}
	v, err := tx.eng.Commit(ctx, tx.Request())
	err = classifyCommit(err)
	tx.commitErr = err
	switch {
	case err == nil:
		tx.cv = v
		tx.finish(committed)
		return v, nil
	case errors.Is(err, ErrAlreadyCommitted):
		tx.cv = v
		tx.finish(committed)
	case errors.Is(err, ErrCommitUnknown):
		tx.finish(unknown)
	default:
		tx.finish(failed)
	}
	return v, err
}

// Rollback discards the transaction. It is a no-op on a finished one.
func (tx *Tx) Rollback() {
	if tx.state == active {
		tx.finish(rolledBack)
	}
}

// Request builds the commit request Commit would send. It is a view of the
// transaction's buffers: valid until the transaction's next operation
// (Commit and Rollback included), and not to be modified. On a finished
// transaction it returns an empty request.
func (tx *Tx) Request() *CommitRequest {
	if tx.c == nil {
		return &CommitRequest{ReadVersion: tx.rv}
	}
	r := &tx.c.req
	*r = CommitRequest{
		ReadVersion:    tx.rv,
		ReadKeys:       r.ReadKeys[:0],
		ReadRanges:     r.ReadRanges[:0],
		Sets:           r.Sets[:0],
		Clears:         tx.c.wb.clears,
		WriteRanges:    tx.c.wranges,
		IdempotencyKey: tx.opt.IdempotencyKey,
	}
	for i := range tx.c.rends {
		r.ReadKeys = append(r.ReadKeys, tx.c.readKey(i))
	}
	r.ReadRanges = append(r.ReadRanges, tx.c.rranges...)
	snapshot := tx.opt.Isolation == Snapshot
	w := &tx.c.wb
	for i := range w.ents {
		e := &w.ents[i]
		k := w.key(e)
		if e.del && w.cleared(k) {
			continue // the clear deletes it
		}
		r.Sets = append(r.Sets, k, w.val(e))
		if snapshot {
			r.ReadKeys = append(r.ReadKeys, k) // first committer wins
		}
	}
	if snapshot {
		// Clears and write-conflict ranges are writes too: first committer
		// wins on them as on Sets.
		r.ReadRanges = append(r.ReadRanges, tx.c.wb.clears...)
		r.ReadRanges = append(r.ReadRanges, tx.c.wranges...)
	}
	if tx.opt.Isolation == ReadCommitted && len(r.ReadKeys) == 0 && len(r.ReadRanges) == 0 {
		// Nothing to validate: commit at the newest version, never too old.
		// Explicit read conflicts (AddReadConflictKey/Range) keep the Begin
		// version, so that writes after it are caught.
		r.ReadVersion = tx.eng.ReadVersion()
	}
	return r
}

// emptyRange reports whether [begin, end) holds no key (nil end: +inf).
func emptyRange(begin, end []byte) bool {
	return end != nil && bytes.Compare(begin, end) >= 0
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// check returns an error if the transaction cannot take another operation
// or ctx is done.
func (tx *Tx) check(ctx context.Context) error {
	if err := tx.checkOp(); err != nil {
		return err
	}
	return ctx.Err()
}

// checkOp is check for operations that do not block. Its fast path is
// small enough to inline.
func (tx *Tx) checkOp() error {
	if tx.state == active && !tx.hasDeadline {
		return nil
	}
	return tx.checkSlow()
}

func (tx *Tx) checkSlow() error {
	if tx.state != active {
		return ErrDone
	}
	if !tx.opt.Deadline.IsZero() && time.Now().After(tx.opt.Deadline) {
		tx.finish(failed)
		return ErrDeadline
	}
	return nil
}

func (tx *Tx) readVersion() uint64 {
	if tx.opt.Isolation == ReadCommitted {
		return tx.eng.ReadVersion()
	}
	return tx.rv
}

// readRetries is how many times a ReadCommitted read that fell behind the
// engine's history window is made again at a fresh read version.
const readRetries = 3

// retryRead reports whether a read that failed with err (classified) after
// tries retries is to be made again at a fresh read version. Under
// ReadCommitted a read takes the newest version, and commits landing
// between taking it and reading at it can move the engine's horizon past
// it (memkv's HistoryBytes does with one large commit): nothing needs that
// version, so a fresh one serves, where failing ended the transaction and
// dropped its writes. The other levels read at the version at Begin, which
// no retry brings back.
func (tx *Tx) retryRead(err error, tries int) bool {
	return tx.opt.Isolation == ReadCommitted && tries < readRetries && errors.Is(err, ErrTooOld)
}

// fail marks the transaction failed when err makes it unusable.
func (tx *Tx) fail(err error) error {
	if errors.Is(err, ErrTooOld) {
		tx.finish(failed)
	}
	return err
}

func (tx *Tx) finish(s state) {
	tx.state = s
	if tx.acct != nil {
		tx.acct.add(-tx.mem)
	}
	tx.mem = 0
	if tx.onDone != nil {
		tx.onDone(tx)
	}
	if c := tx.c; c.poolable() {
		c.reset()
		corePool.Put(c)
	}
	tx.c = nil
}

// keyAfter returns the smallest key greater than k: k + 0x00.
func keyAfter(k []byte) []byte {
	out := make([]byte, len(k)+1)
	copy(out, k)
	return out
}
