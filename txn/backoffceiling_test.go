package txn_test

import (
	"math"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

// The backoff ceiling doubles per attempt up to MaxBackoff, however many
// doublings that takes: it stopped doubling after 30 of them, so with
// MaxBackoff more than 2^30 times BaseBackoff (1 ns and 1000 h here) it
// never passed BaseBackoff<<30 (1.07 s) and 63 retries waited 68 s at most.
// With the ceiling at 1000 h from the 53rd attempt on, the last eleven
// waits are each drawn below 1000 h: all below 68 s together has a
// probability under 1e-50.
func TestRunBackoffCeilingReachesMaxBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStore(t, memkv.Config{})
		pol := txn.RetryPolicy{MaxAttempts: 64, MaxElapsed: math.MaxInt64,
			BaseBackoff: time.Nanosecond, MaxBackoff: 1000 * time.Hour}
		start := time.Now()
		attempts := 0
		_, err := txn.Run(ctx, s, txn.Options{}, pol, func(*txn.Tx) error {
			attempts++
			return txn.ErrTransient
		})
		require.ErrorIs(t, err, txn.ErrRetriesExhausted)
		assert.Equal(t, 64, attempts)
		stuck := 63 * (time.Nanosecond << 30)
		assert.Greater(t, time.Since(start), stuck, "the ceiling stopped doubling at BaseBackoff<<30")
	})
}
