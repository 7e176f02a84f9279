package txn

// Savepoint marks a point in a transaction's writes that [Tx.RollbackTo] can
// return to. Savepoints nest. The zero Savepoint is invalid.
type Savepoint struct {
	depth int
	gen   uint64
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
	return tx.c.wb.savepoint(len(tx.c.wranges)), nil
}

// RollbackTo undoes the writes, clears and write-conflict ranges made since
// sp, and closes the savepoints nested in sp; sp stays open. Reads made
// since sp stay in the read set: the caller saw their values. The bytes of
// the undone writes stay in the write buffer (its chunks are append-only:
// slices handed out stay valid), so they stay charged to MemoryBudget until
// the transaction ends; the undo records kept for overwrites and range
// deletes since sp are refunded. It returns ErrNoSavepoint if sp was
// released or rolled past.
func (tx *Tx) RollbackTo(sp Savepoint) error {
	if err := tx.checkOp(); err != nil {
		return err
	}
	if !tx.c.wb.find(sp) {
		return ErrNoSavepoint
	}
	nested := len(tx.c.wb.sps) - sp.depth
	wranges, dropped := tx.c.wb.rollbackTo(sp)
	tx.refund(entryOverhead * (nested + dropped))
	tx.c.wranges = tx.c.wranges[:wranges]
	return nil
}

// Release closes sp and the savepoints nested in it, keeping their writes.
// Closing the last open savepoint refunds the undo records kept for
// overwrites and range deletes.
func (tx *Tx) Release(sp Savepoint) error {
	if err := tx.checkOp(); err != nil {
		return err
	}
	if !tx.c.wb.find(sp) {
		return ErrNoSavepoint
	}
	closed := len(tx.c.wb.sps) - sp.depth + 1
	tx.refund(entryOverhead * (closed + tx.c.wb.release(sp)))
	return nil
}
