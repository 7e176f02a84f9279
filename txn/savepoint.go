package txn

// Savepoint marks a point in a transaction's writes that [Tx.RollbackTo] can
// return to. Savepoints nest. The zero Savepoint is invalid. A Savepoint
// belongs to the transaction that opened it: any other transaction refuses
// it with ErrNoSavepoint, including one begun after that transaction ended
// that reuses its pooled buffers. Keeping a Savepoint keeps its (ended)
// transaction's Tx value reachable, not its buffers.
type Savepoint struct {
	tx    *Tx // the transaction's identity: Tx values are never reused
	depth int
	gen   uint64 // numbers the savepoints of one transaction
}

// Savepoint opens a savepoint nested in any open ones. An open savepoint is
// charged to MemoryBudget (and the manager's budget) as a write entry's
// overhead is, until it is released or rolled past: a transaction opening
// savepoints it never releases is refused with ErrTooLarge, as one buffering
// writes without end is, rather than growing past its budgets.
func (tx *Tx) Savepoint() (Savepoint, error) {
	if err := tx.checkOp(); err != nil {
		return Savepoint{}, err
	}
	if err := tx.charge(entryOverhead); err != nil {
		return Savepoint{}, err
	}
	sp := tx.c.wb.savepoint(len(tx.c.wranges))
	sp.tx = tx
	return sp, nil
}

// open reports whether sp is one of tx's open savepoints. The write
// buffer's generations restart with each transaction that reuses it, so
// sp.tx tells a savepoint of an earlier one apart.
func (tx *Tx) open(sp Savepoint) bool {
	return sp.tx == tx && tx.c.wb.find(sp)
}

// RollbackTo undoes the writes, clears and write-conflict ranges made since
// sp, and closes the savepoints nested in sp; sp stays open. Reads made
// since sp stay in the read set: the caller saw their values. The bytes of
// the undone writes' keys and values stay in the write buffer (its chunks
// are append-only: slices handed out stay valid), so they stay charged to
// MemoryBudget until the transaction ends; the entries of the new keys
// undone, the undone range deletes and write-conflict ranges (copies of
// their own) and the undo records kept for overwrites and range deletes
// since sp are refunded. It returns ErrNoSavepoint, and changes nothing, if
// sp was released or rolled past or is another transaction's.
func (tx *Tx) RollbackTo(sp Savepoint) error {
	if err := tx.checkOp(); err != nil {
		return err
	}
	if !tx.open(sp) {
		return ErrNoSavepoint
	}
	nested := len(tx.c.wb.sps) - sp.depth
	wranges, refund := tx.c.wb.rollbackTo(sp)
	dropped := tx.c.wranges[wranges:]
	refund += rangesCost(dropped)
	clear(dropped) // refunded: let the copies go
	tx.c.wranges = tx.c.wranges[:wranges]
	tx.refund(entryOverhead*nested + refund)
	return nil
}

// Release closes sp and the savepoints nested in it, keeping their writes.
// Closing the last open savepoint refunds the undo records kept for
// overwrites and range deletes. It returns ErrNoSavepoint as RollbackTo
// does.
func (tx *Tx) Release(sp Savepoint) error {
	if err := tx.checkOp(); err != nil {
		return err
	}
	if !tx.open(sp) {
		return ErrNoSavepoint
	}
	closed := len(tx.c.wb.sps) - sp.depth + 1
	tx.refund(entryOverhead * (closed + tx.c.wb.release(sp)))
	return nil
}
