package txn_test

import (
	"fmt"
	"testing"
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
