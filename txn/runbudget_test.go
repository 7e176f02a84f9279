package txn_test

import (
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
