package txn_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

// busyError is an engine's "applied nothing, retry" answer.
type busyError struct{}

func (busyError) Error() string   { return "shard busy, nothing applied" }
func (busyError) Temporary() bool { return true }

// gaveUpError is a client library's timeout that keeps the last attempt's
// error: the wait ran out, and an earlier attempt may have been applied.
type gaveUpError struct{ last error }

func (e gaveUpError) Error() string   { return "deadline exceeded after retries: " + e.last.Error() }
func (e gaveUpError) Timeout() bool   { return true }
func (e gaveUpError) Temporary() bool { return true }
func (e gaveUpError) Unwrap() error   { return e.last }

// TestCommitTimeoutWrappingTemporaryIsUnknown: a commit error that reports
// Timeout is ErrCommitUnknown, and only a Temporary outside the timeout
// vouches that nothing was applied. A Temporary found inside the timeout
// (the last attempt's answer) was taken for that verdict: the commit was
// ErrTransient, and Run applied it twice.
func TestCommitTimeoutWrappingTemporaryIsUnknown(t *testing.T) {
	for name, lost := range map[string]error{
		"timeout wrapping temporary":  gaveUpError{last: busyError{}},
		"wrapped once more":           fmt.Errorf("commit: %w", gaveUpError{last: fmt.Errorf("attempt 3: %w", busyError{})}),
		"two timeouts, one temporary": gaveUpError{last: gaveUpError{last: busyError{}}},
	} {
		t.Run(name, func(t *testing.T) { requireAppliedOnceUnknown(t, lost) })
	}
}

// tooOldError is an engine's "the read version is too old" answer.
type tooOldError struct{}

func (tooOldError) Error() string { return "read version too old" }
func (tooOldError) TooOld() bool  { return true }

// TestCommitTimeoutWrappingConflictIsUnknown: the same holds for a conflict
// or a too-old answer kept inside the timeout: the last attempt may have
// conflicted with the first one, applied before its reply was lost. Both
// were looked for anywhere in the chain, so the commit was a
// *ConflictError or ErrTooOld, Retryable, and Run applied it twice.
func TestCommitTimeoutWrappingConflictIsUnknown(t *testing.T) {
	conflict := &memkv.ConflictError{Keys: [][]byte{[]byte("n")}}
	for name, lost := range map[string]error{
		"timeout wrapping conflict": gaveUpError{last: conflict},
		"timeout wrapping too old":  gaveUpError{last: tooOldError{}},
		"wrapped once more":         fmt.Errorf("commit: %w", gaveUpError{last: fmt.Errorf("attempt 3: %w", conflict)}),
	} {
		t.Run(name, func(t *testing.T) { requireAppliedOnceUnknown(t, lost) })
	}

	// Outside the timeout, the engine's own answer still decides.
	err := classifyOnce(t, fmt.Errorf("commit: %w", tooOldWrapping{gaveUpError{last: busyError{}}}))
	assert.ErrorIs(t, err, txn.ErrTooOld)
}

// tooOldWrapping is an engine's too-old answer wrapping the wait's error.
type tooOldWrapping struct{ err error }

func (e tooOldWrapping) Error() string { return "too old: " + e.err.Error() }
func (e tooOldWrapping) Unwrap() error { return e.err }
func (e tooOldWrapping) TooOld() bool  { return true }
