package memkv

import (
	"errors"
	"fmt"
)

// Errors returned by the store. Each says what the caller should do. Besides
// errors.Is, the commit errors expose behaviour methods (TooOld, CommitUnknown,
// AlreadyCommitted, Temporary, ConflictKeys) so that a transaction layer can
// classify them without importing this package, the way net.Error exposes
// Timeout.
var (
	// ErrTooOld: the read version is older than the GC horizon, so the
	// versions it needs may be gone. Restart the transaction at a fresh read
	// version.
	ErrTooOld error = tooOldError{}

	// ErrFutureVersion: the read version is newer than any committed version.
	// Use a version returned by [Store.ReadVersion].
	ErrFutureVersion = errors.New("memkv: read version is in the future")

	// ErrConflict matches every *ConflictError with errors.Is: a write
	// committed after the read version overlaps a read. Retry the whole
	// transaction.
	ErrConflict = errors.New("memkv: conflict")

	// ErrCommitUnknown: the commit may or may not have been applied (the
	// reply was lost). Do not retry blindly; retry with the same idempotency
	// key, which the store deduplicates, or read back to find out.
	ErrCommitUnknown error = unknownError{}

	// ErrAlreadyCommitted: a commit with the same idempotency key was already
	// applied; the version returned with it is the original commit version.
	// The transaction is done; do not apply it again.
	ErrAlreadyCommitted error = alreadyError{}

	// ErrTooLarge: the commit request exceeds Config.MaxCommitBytes. Split the
	// transaction.
	ErrTooLarge error = tooLargeError{}

	// ErrInvalidRequest: a commit request's ReadRanges, Sets, Clears or
	// WriteRanges has an odd number of elements, so one key has no pair (a
	// range without its end, a key without its value). Nothing was applied;
	// fix the request.
	ErrInvalidRequest = errors.New("memkv: commit request has an unpaired key")

	// ErrInjected is returned by a commit failed by the Faults.FailBeforeCommit
	// hook: nothing was applied, and retrying is safe.
	ErrInjected error = injectedError{}

	// ErrOverflow: a subscriber fell more than Config.FeedBuffer events
	// behind and was cut off. Events before the cut were all delivered in
	// order; resubscribe and treat any state derived from the feed as stale.
	ErrOverflow = errors.New("memkv: change feed subscriber overflowed")

	// ErrInvalidConfig is wrapped by the errors of [New] and
	// [Store.SetConfig] for a Config out of range (bad Splits, a negative
	// field, a change of Splits). Fix the configuration; SetConfig then
	// changes nothing, the previous one stays in force.
	ErrInvalidConfig = errors.New("invalid config")

	// ErrClosed: the subscription was closed.
	ErrClosed = errors.New("memkv: subscription closed")
)

type tooOldError struct{}

func (tooOldError) Error() string { return "memkv: read version is older than the history window" }
func (tooOldError) TooOld() bool  { return true }

type unknownError struct{}

func (unknownError) Error() string       { return "memkv: commit outcome unknown (reply lost)" }
func (unknownError) CommitUnknown() bool { return true }

type alreadyError struct{}

func (alreadyError) Error() string          { return "memkv: already committed (idempotency key seen)" }
func (alreadyError) AlreadyCommitted() bool { return true }

type tooLargeError struct{}

func (tooLargeError) Error() string  { return "memkv: commit request too large" }
func (tooLargeError) TooLarge() bool { return true }

type injectedError struct{}

func (injectedError) Error() string   { return "memkv: injected failure before commit" }
func (injectedError) Temporary() bool { return true }

// notAppliedError is a context's error that ended a commit before it was
// applied. It says so with Temporary, ahead of the context error's own
// Timeout, which alone leaves the outcome unknown to a transaction layer.
type notAppliedError struct{ err error }

func (e notAppliedError) Error() string { return "memkv: commit not applied: " + e.err.Error() }
func (e notAppliedError) Unwrap() error { return e.err }
func (notAppliedError) Temporary() bool { return true }

// Cause says which part of a read set a conflicting write overlapped.
type Cause int

// Conflict causes. They start at 1 so that the zero Cause means "none".
const (
	CauseReadKey   Cause = iota + 1 // a point read
	CauseReadRange                  // a range read (scan)
)

// ConflictError reports a failed optimistic validation: writes committed after
// the transaction's read version overlap the listed reads. Retry the whole
// transaction at a fresh read version.
type ConflictError struct {
	// Keys are the point reads that conflicted.
	Keys [][]byte
	// Ranges are the range reads that conflicted, as [begin, end) pairs
	// flattened (Ranges[2i], Ranges[2i+1]); a nil end means no upper bound.
	Ranges [][]byte
	// Version is the newest conflicting commit version seen.
	Version uint64
}

// Error describes the conflict.
func (e *ConflictError) Error() string {
	return fmt.Sprintf("memkv: conflict: %d key(s), %d range(s) overwritten after the read version (newest at %d)",
		len(e.Keys), len(e.Ranges)/2, e.Version)
}

// Is reports whether target is ErrConflict.
func (e *ConflictError) Is(target error) bool { return target == ErrConflict }

// ConflictKeys returns the conflicting point reads.
func (e *ConflictError) ConflictKeys() [][]byte { return e.Keys }

// ConflictRanges returns the conflicting range reads as flattened pairs.
func (e *ConflictError) ConflictRanges() [][]byte { return e.Ranges }
