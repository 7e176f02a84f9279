package txn

import (
	"context"
	"errors"
	"fmt"
)

// CommitRequest is the one message a transaction sends to its [Engine]. It is
// an alias of an unnamed struct type so that an engine can declare the very
// same type without importing txn (memkv.CommitRequest is identical).
//
// Ranges are [begin, end) pairs flattened into one slice (R[2i], R[2i+1]); a
// nil end means no upper bound. The engine applies Clears first, then Sets.
//
//   - ReadVersion: the version the transaction's reads were made at.
//   - ReadKeys, ReadRanges: the reads to validate; the commit must fail if a
//     write committed after ReadVersion overlaps one of them. Under
//     [Snapshot] they also hold the transaction's writes (the keys of Sets
//     in ReadKeys, Clears and WriteRanges in ReadRanges), so that the first
//     committer wins.
//   - Sets: key, value pairs; a nil value deletes the key.
//   - Clears: ranges to delete.
//   - WriteRanges: write-conflict ranges carrying no data.
//   - IdempotencyKey: if non-empty, the engine applies at most one commit
//     with this key and answers a repeat with an error whose
//     AlreadyCommitted method reports true, for as long as it remembers the
//     key (memkv: within its history window).
type CommitRequest = struct {
	ReadVersion    uint64
	ReadKeys       [][]byte
	ReadRanges     [][]byte
	Sets           [][]byte
	Clears         [][]byte
	WriteRanges    [][]byte
	IdempotencyKey []byte
}

// Engine is the storage a transaction reads from and commits to: versioned
// reads and one validated, conditional commit. *memkv.Store implements it; an
// adapter for any store with versioned reads and conditional commits can.
//
// Engine errors are classified by behaviour, so an engine need not import
// txn: an error with a method TooOld() bool reporting true becomes
// [ErrTooOld]; CommitUnknown() [ErrCommitUnknown]; AlreadyCommitted()
// [ErrAlreadyCommitted]; TooLarge() [ErrTooLarge]; Temporary() (the commit
// was not applied, retry is safe) [ErrTransient], except that a commit error
// whose Timeout() reports true is [ErrCommitUnknown], and so is one whose
// Temporary, TooOld, TooLarge or conflict errors are all wrapped inside
// such a timeout (they are the last attempt's answer; only one outside it
// vouches that nothing was applied); and an error with methods
// ConflictKeys() and ConflictRanges() returning [][]byte becomes a
// *[ConflictError]. A commit error wrapping context.Canceled (and no error
// above claiming otherwise) is [ErrCommitUnknown] too, and so is one that
// joins several (errors.Join, several %w) of which one alone would be,
// whatever the others say (a conflict or a transient error beside a
// timeout does not vouch for the request the timeout lost). CommitUnknown,
// AlreadyCommitted, a timeout and context.Canceled say something of a
// commit only, and are ignored on a read's error: no commit was made (a
// read that also reports Temporary is [ErrTransient]; else its error is
// the engine's).
type Engine interface {
	// ReadVersion returns the newest version a transaction can read at.
	ReadVersion() uint64
	// Get returns the value of key at version. Values may be shared with the
	// engine and are not modified by callers.
	Get(ctx context.Context, version uint64, key []byte) (value []byte, found bool, err error)
	// Scan appends to dst the key, value pairs (flattened) of [begin, end)
	// at version, ascending or descending: the first limit pairs in that
	// order (limit <= 0: all). It must not page: fewer than limit pairs
	// means the range holds no more, and the transaction takes it as the
	// end of the range (an engine that returns a shorter page would make
	// range reads silently miss keys). The appended slices must stay valid
	// and unmodified after the call (the transaction returns them to its
	// caller); dst is reused.
	Scan(ctx context.Context, version uint64, begin, end []byte, limit int, reverse bool, dst [][]byte) ([][]byte, error)
	// Commit validates and applies req, returning the commit version. The
	// engine must not keep req or its slices after returning, not even in
	// the error it returns (copy conflicting keys): the transaction reuses
	// them.
	Commit(ctx context.Context, req *CommitRequest) (uint64, error)
}

// Errors. Each says what the caller should do.
var (
	// ErrConflict matches every *ConflictError: retry the transaction.
	ErrConflict = errors.New("txn: conflict")
	// ErrTooOld: the read version fell out of the engine's history window
	// (the transaction ran too long; under ReadCommitted, commits moved the
	// window past a read's fresh version on each of its four attempts: see
	// [ReadCommitted]). Retry the transaction.
	ErrTooOld = errors.New("txn: transaction too old")
	// ErrTooLarge: the transaction exceeds its memory budget (after merging
	// its read ranges) or a write exceeds MaxKeySize, MaxValueSize or
	// MaxWrites (the operation is refused, the transaction stays usable);
	// or, from Commit, the engine's request limit (the transaction is
	// over). Split it.
	ErrTooLarge = errors.New("txn: transaction too large")
	// ErrCommitUnknown: the commit may or may not have been applied. Do not
	// retry blindly: retry with the same idempotency key, or read back.
	ErrCommitUnknown = errors.New("txn: commit outcome unknown")
	// ErrAlreadyCommitted: the engine already applied a commit with this
	// idempotency key; the transaction is done.
	ErrAlreadyCommitted = errors.New("txn: already committed")
	// ErrTransient: the commit failed before being applied; retry is safe.
	ErrTransient = errors.New("txn: transient commit failure")
	// ErrDone: the transaction was committed, rolled back, or failed; begin
	// a new one.
	ErrDone = errors.New("txn: transaction is done")
	// ErrDeadline: the transaction's deadline passed; it is over (nothing
	// of it is committed).
	ErrDeadline = errors.New("txn: deadline exceeded")
	// ErrNoSavepoint: the savepoint was released or rolled past, or is
	// another transaction's.
	ErrNoSavepoint = errors.New("txn: no such savepoint")
	// ErrNotFound: the manager holds no transaction with this id (it
	// finished, or was reaped). Begin a new one.
	ErrNotFound = errors.New("txn: no such transaction")
	// ErrOverloaded: the manager is at its transaction or memory limit. Back
	// off and retry later.
	ErrOverloaded = errors.New("txn: manager overloaded")
	// ErrInvalidConfig is wrapped by the errors for configuration out of
	// range: Options with an unknown Isolation ([Begin], [Manager.Begin],
	// [Run]), a negative ManagerConfig field ([NewManager],
	// [Manager.SetConfig]) or RetryPolicy field, a nil Engine ([NewManager]),
	// or a BaseBackoff above
	// MaxBackoff ([Run]). Nothing was started; fix the configuration
	// (Manager.SetConfig keeps the previous one). Retrying will not help.
	ErrInvalidConfig = errors.New("invalid config")
)

// ConflictError reports a failed validation: writes committed after the
// read version overlap the listed reads (under [Snapshot], the listed writes
// too: see [CommitRequest]). Retry the transaction.
type ConflictError struct {
	// Keys are the keys of the request's ReadKeys that conflicted: point
	// reads (Serializable) and explicit read-conflict keys, and under
	// Snapshot the keys the transaction wrote.
	Keys [][]byte
	// Ranges are the ranges of the request's ReadRanges that conflicted,
	// flattened [begin, end) pairs: range reads (Serializable; after a
	// read-set merge, the ranges that replaced the point and range reads)
	// and explicit read-conflict ranges, and under Snapshot the
	// transaction's clears and write-conflict ranges.
	Ranges [][]byte
	// Err is the engine's error.
	Err error
}

// Error describes the conflict.
func (e *ConflictError) Error() string {
	return fmt.Sprintf("txn: conflict on %d key(s) and %d range(s)", len(e.Keys), len(e.Ranges)/2)
}

// Is reports whether target is ErrConflict.
func (e *ConflictError) Is(target error) bool { return target == ErrConflict }

// Unwrap returns the engine's error.
func (e *ConflictError) Unwrap() error { return e.Err }

// classify maps an engine read error onto the package's errors, as a
// *readError that says a read failed.
func classify(err error) error {
	if err == nil {
		return nil
	}
	// Not c == err: that panics when err's dynamic type is not comparable
	// (an adapter's error struct holding a slice, returned by value).
	return &readError{class: classOf(err, false), err: err}
}

// readError is a failed read's error. It matches its class (ErrTooOld,
// ErrTransient, ...) and the engine's error with errors.Is and errors.As,
// and says that a read failed: ErrTransient's own text names a commit,
// and the engine's error alone may not say what it failed.
type readError struct {
	class error // the classified error (wrapping err), or nil
	err   error // the engine's error
}

func (e *readError) Error() string {
	switch {
	case e.class == nil:
		return "txn: read failed: " + e.err.Error()
	case errors.Is(e.class, ErrTransient):
		return "txn: read failed, transient: " + e.err.Error()
	}
	return "txn: read failed: " + e.class.Error()
}

func (e *readError) Unwrap() error {
	if e.class == nil {
		return e.err
	}
	return e.class
}

// classifyCommit maps an engine commit error onto the package's errors. A
// timeout (an error whose Timeout reports true: context.DeadlineExceeded,
// os.ErrDeadlineExceeded, a net timeout) is [ErrCommitUnknown] even though
// such errors also report Temporary: the request may have reached the engine
// and been applied before the wait for its reply ran out. So is
// context.Canceled, for the same reason: the caller stopped waiting, which
// does not stop an engine that already has the request. An engine that
// knows it applied nothing says so with an error of its own, outside the
// timeout or cancellation, whose Temporary reports true.
func classifyCommit(err error) error { return classifyErr(err, true) }

func classifyErr(err error, commit bool) error {
	if err == nil {
		return nil
	}
	if c := classOf(err, commit); c != nil {
		return c
	}
	return err
}

// classOf returns err (not nil) classified as one of the package's errors,
// wrapping it, or nil if no class matches.
func classOf(err error, commit bool) error {
	// Before the conflict: a conflict joined with a timeout does not vouch
	// for the request the timeout lost, as a transient error does not.
	if commit && unknownBeside(err) {
		return fmt.Errorf("%w: %w", ErrCommitUnknown, err)
	}
	if c, ok := findConflict(err, commit); ok {
		return &ConflictError{Keys: c.ConflictKeys(), Ranges: c.ConflictRanges(), Err: err}
	}
	for _, m := range matchers(commit) {
		if anyWrapped(err, m.is, m.stop) {
			return fmt.Errorf("%w: %w", m.sent, err)
		}
	}
	return nil
}

// findConflict finds an engine's conflict error in err's tree, as
// errors.As does. For a commit it does not look below an error that reports
// Timeout: a conflict kept inside a timeout is the last attempt's answer,
// and that attempt may have conflicted with an earlier one that was applied
// before its reply was lost.
func findConflict(err error, commit bool) (conflicter, bool) {
	var c conflicter
	if !commit {
		return c, errors.As(err, &c)
	}
	found := anyWrapped(err, func(e error) bool {
		if x, ok := e.(conflicter); ok {
			c = x
			return true
		}
		x, ok := e.(interface{ As(any) bool })
		return ok && x.As(&c)
	}, timedOut)
	return c, found
}

// conflicter is an engine's conflict error.
type conflicter interface {
	ConflictKeys() [][]byte
	ConflictRanges() [][]byte
}

// matcher maps the errors is holds for onto sent. If stop is not nil, the
// errors wrapped by one that stop holds for are not looked at.
type matcher struct {
	is   func(error) bool
	stop func(error) bool
	sent error
}

// matchers returns classifyErr's matchers, first match first. A read's
// error is matched against the read's classes only: an engine's error type
// shared by its reads and commits may report CommitUnknown or
// AlreadyCommitted on a read, where no commit was made (Run took the
// latter for success, and returned version 0 for writes never sent).
func matchers(commit bool) []matcher {
	if !commit {
		return []matcher{
			{isTooOld, nil, ErrTooOld},
			{isTooLarge, nil, ErrTooLarge},
			{isTemporary, nil, ErrTransient},
		}
	}
	return []matcher{
		// A too-old answer inside a timeout is the last attempt's: an
		// earlier one may have been applied (see the Temporary below).
		{isTooOld, timedOut, ErrTooOld},
		{func(e error) bool { x, ok := e.(interface{ CommitUnknown() bool }); return ok && x.CommitUnknown() }, nil, ErrCommitUnknown},
		{func(e error) bool {
			x, ok := e.(interface{ AlreadyCommitted() bool })
			return ok && x.AlreadyCommitted()
		}, nil, ErrAlreadyCommitted},
		// A too-large answer inside a timeout is the last attempt's too
		// (the engine's limit lowered since an earlier one was applied).
		{isTooLarge, timedOut, ErrTooLarge},
		// A Temporary inside a timeout (a client's "gave up waiting" keeping
		// its last attempt's answer) does not vouch for the attempts before:
		// only one outside every timeout says that nothing was applied.
		{func(e error) bool { return isTemporary(e) && !timedOut(e) }, timedOut, ErrTransient},
		{func(e error) bool { return timedOut(e) || e == context.Canceled }, nil, ErrCommitUnknown},
	}
}

func isTooOld(e error) bool { x, ok := e.(interface{ TooOld() bool }); return ok && x.TooOld() }

func isTooLarge(e error) bool { x, ok := e.(interface{ TooLarge() bool }); return ok && x.TooLarge() }

func isTemporary(e error) bool {
	x, ok := e.(interface{ Temporary() bool })
	return ok && x.Temporary()
}

// unknownBeside reports whether err wraps several errors (errors.Join, a
// fmt.Errorf with more than one %w) of which one, classified alone, leaves
// the commit's outcome unknown. Such errors are reports side by side, none
// vouching for the others: an engine's "applied nothing" (Temporary)
// joined with a timeout says nothing of the request the timeout lost, and
// classified as ErrTransient, Run retried a commit that may have been
// applied, and applied it twice; joined with a conflict, it was a
// *ConflictError, retried too. An error on the way to them that classifies
// itself (an engine's Temporary or conflict error wrapping them all) still
// decides, as for a single chain.
func unknownBeside(err error) bool {
	for err != nil {
		if _, ok := err.(conflicter); ok {
			return false
		}
		for _, m := range matchers(true) {
			if m.is(err) {
				return false
			}
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				if errors.Is(classifyErr(e, true), ErrCommitUnknown) {
					return true
				}
			}
			return false
		default:
			return false
		}
	}
	return false
}

// anyWrapped reports whether is holds for err or an error it wraps, walking
// the tree as errors.Is does: an error wrapping several (errors.Join, a
// fmt.Errorf with more than one %w) has no single Unwrap, and following
// errors.Unwrap alone stopped at it, so its behaviours went unseen. The
// walk does not go below an error that stop (if not nil) holds for.
func anyWrapped(err error, is, stop func(error) bool) bool {
	for err != nil {
		if is(err) {
			return true
		}
		if stop != nil && stop(err) {
			return false
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				if anyWrapped(e, is, stop) {
					return true
				}
			}
			return false
		default:
			return false
		}
	}
	return false
}

// timedOut reports whether e itself (not what it wraps) reports Timeout.
func timedOut(e error) bool {
	x, ok := e.(interface{ Timeout() bool })
	return ok && x.Timeout()
}
