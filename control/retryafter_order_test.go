package control_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// TestRetryAfterOutOfOrderIsExact: a request stamped before the last refill
// (explicit times out of order) is told the exact wait, counted from that
// refill's time, not one stepped up from its own time by doubling steps,
// which overshot by seconds.
func TestRetryAfterOutOfOrderIsExact(t *testing.T) {
	for _, dry := range []bool{false, true} {
		fx := newFixture(t, control.Config{Rate: 1, Burst: 1})
		_, err := fx.reg.ApplyAt(t0.Add(10*time.Second), one("n", control.Int(50)))
		require.NoError(t, err)
		early := t0.Add(5 * time.Second)
		req := one("n", control.Int(51))
		req.DryRun = dry
		_, err = fx.reg.ApplyAt(early, req)
		var rl *control.RateLimitError
		require.ErrorAs(t, err, &rl)
		// The token refills at t0+11s, 6s after early.
		require.Equal(t, 6*time.Second, rl.RetryAfter, "dry run %v", dry)
		_, err = fx.reg.ApplyAt(early.Add(rl.RetryAfter-time.Nanosecond), one("n", control.Int(51)))
		require.ErrorIs(t, err, control.ErrRateLimited, "accepted before RetryAfter")
		_, err = fx.reg.ApplyAt(early.Add(rl.RetryAfter), one("n", control.Int(51)))
		require.NoError(t, err, "refused after waiting RetryAfter")
	}
}
