package txn

import (
	"fmt"
	"time"
)

// Isolation is a transaction's isolation level. The zero value means
// Serializable.
type Isolation int

// Isolation levels, starting at 1; the zero Isolation is Serializable.
const (
	// Serializable validates every read (point and range, so phantoms too)
	// at commit: committed transactions are equivalent to a serial order.
	Serializable Isolation = iota + 1
	// Snapshot reads from the snapshot at Begin and validates only writes
	// (Sets, clears and explicit write-conflict ranges) against writes
	// (first committer wins), plus any explicit read conflicts: lost
	// updates are prevented, write skew is allowed.
	Snapshot
	// ReadCommitted reads the latest committed version at each read and
	// validates only the explicit read conflicts (Tx.AddReadConflictKey,
	// Tx.AddReadConflictRange), against the version at Begin; without them
	// it validates nothing: writes are atomic, last writer wins. A read
	// whose version falls behind the engine's history window before it is
	// made (commits landed in between) is made again at a fresh version, up
	// to three times, before it fails with ErrTooOld, ending the
	// transaction.
	ReadCommitted
)

// String returns the level's name.
func (i Isolation) String() string {
	switch i {
	case 0, Serializable:
		return "serializable"
	case Snapshot:
		return "snapshot"
	case ReadCommitted:
		return "read-committed"
	}
	return "invalid"
}

// Options configure one transaction. The zero Options is valid.
type Options struct {
	// Isolation defaults to Serializable.
	Isolation Isolation
	// Deadline, if non-zero, fails the first operation after it with
	// ErrDeadline, which ends the transaction (counted as failed by a
	// Manager); later operations fail with ErrDone.
	Deadline time.Time
	// MemoryBudget bounds the bytes the transaction holds: written keys
	// and values, the bounds of range deletes and write-conflict ranges,
	// read-set entries and open savepoints, plus an entry's overhead for
	// each write, range, read and savepoint. A key written again adds its
	// new value only (and, while a savepoint is open, an entry's overhead
	// for its undo record, as a range delete does per write it deletes,
	// refunded when the savepoint is rolled back to or the last open one
	// released). Tx.RollbackTo refunds the range deletes and write-conflict
	// ranges it undoes, and the entries of the new keys it undoes, not their
	// keys and values, which the write buffer keeps. Over it, read keys and
	// ranges first merge into fewer, wider ranges (a safe superset: more
	// false conflicts, never a missed one); if that is not enough the
	// operation fails with ErrTooLarge: it is refused, and the transaction
	// stays usable (roll back, or commit what it holds). Apart from
	// MaxWrites, there is no separate limit on the number of writes; the
	// engine may refuse a request too large for it, and ErrTooLarge from
	// Commit ends the transaction. Zero means 16 MiB; negative means no
	// limit (MaxKeySize, MaxValueSize and MaxWrites still apply).
	MemoryBudget int
	// IdempotencyKey, if non-empty, is sent with the commit: the engine
	// applies at most one commit with it, which makes retrying a commit of
	// unknown outcome safe. An engine remembers keys for a bounded time
	// (memkv: its history window): a retry that arrives after the engine
	// forgot the key is applied again. Begin copies it and charges the
	// copy to MemoryBudget (and a Manager's TotalBudget); a key longer
	// than MemoryBudget is refused with an error wrapping ErrTooLarge.
	IdempotencyKey []byte
}

const defaultBudget = 16 << 20

// validate reports Options out of range, as an error wrapping
// [ErrInvalidConfig].
func (o Options) validate() error {
	if o.Isolation < 0 || o.Isolation > ReadCommitted {
		return invalid("unknown Isolation %d", int(o.Isolation))
	}
	return nil
}

// invalid returns an error for a configuration out of range (Options,
// ManagerConfig, RetryPolicy) that wraps [ErrInvalidConfig].
func invalid(format string, args ...any) error {
	return fmt.Errorf("txn: "+format+": %w", append(args, ErrInvalidConfig)...)
}

func (o Options) withDefaults() Options {
	if o.Isolation == 0 {
		o.Isolation = Serializable
	}
	if o.MemoryBudget == 0 {
		o.MemoryBudget = defaultBudget
	}
	return o
}
