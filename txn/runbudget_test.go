package txn_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

// MaxElapsed is a bound on retrying, as documented: no attempt starts after
// it, and Run overruns it by at most the attempt that was running when it
// passed (attempts take 40 ms of virtual time here).
func TestRunMaxElapsedBoundsRetrying(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStore(t, memkv.Config{})
		const budget, work = 100 * time.Millisecond, 40 * time.Millisecond
		pol := txn.RetryPolicy{MaxAttempts: 1000, MaxElapsed: budget,
			BaseBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond}
		start := time.Now()
		var starts []time.Duration
		_, err := txn.Run(ctx, s, txn.Options{}, pol, func(*txn.Tx) error {
			starts = append(starts, time.Since(start))
			time.Sleep(work) // virtual: the attempt's work
			return txn.ErrTransient
		})
		require.ErrorIs(t, err, txn.ErrRetriesExhausted)
		require.GreaterOrEqual(t, len(starts), 2, "the budget allows a retry")
		for i, d := range starts {
			assert.LessOrEqual(t, d, budget, "attempt %d started after MaxElapsed", i)
		}
		assert.LessOrEqual(t, time.Since(start), budget+work, "more than one attempt past MaxElapsed")
	})
}

// A backoff that would end after the context's deadline is not waited out:
// Run returned only when the deadline passed, holding its caller for
// nothing, and then with the bare context error, which hid why it had been
// retrying. As with MaxElapsed, it now stops at once.
func TestRunDoesNotWaitForABackoffPastTheDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStore(t, memkv.Config{})
		const work = time.Second
		c, cancel := context.WithTimeout(ctx, work+time.Nanosecond)
		defer cancel()
		pol := txn.RetryPolicy{BaseBackoff: time.Second, MaxBackoff: time.Second}
		start := time.Now()
		calls := 0
		_, err := txn.Run(c, s, txn.Options{}, pol, func(*txn.Tx) error {
			calls++
			time.Sleep(work) // virtual: leaves a nanosecond before the deadline
			return txn.ErrTransient
		})
		require.ErrorIs(t, err, txn.ErrRetriesExhausted)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.ErrorIs(t, err, txn.ErrTransient, "the last attempt's error is kept")
		assert.Equal(t, 1, calls)
		assert.Equal(t, work, time.Since(start), "no wait")
	})
}
