package control_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// TestRetryAfterIsEnough: a caller refused by the change budget that waits
// exactly RetryAfter is accepted, whatever the Rate: RetryAfter is rounded up
// to the nanosecond that refills a whole token, not down to one short of it.
func TestRetryAfterIsEnough(t *testing.T) {
	for _, rate := range []float64{0.3, 0.7, 1.0 / 3, 3, 7, 13, 1000.0 / 3} {
		fx := newFixture(t, control.Config{Rate: rate, Burst: 1})
		now, v := t0, int64(1)
		_, err := fx.reg.ApplyAt(now, one("n", control.Int(50)))
		require.NoError(t, err)
		for i := range 20 {
			v = v%40 + 1
			_, err := fx.reg.ApplyAt(now, one("n", control.Int(v)))
			var rl *control.RateLimitError
			require.True(t, errors.As(err, &rl), "rate %v, change %d: want a budget refusal, got %v", rate, i, err)
			require.Positive(t, rl.RetryAfter)
			now = now.Add(rl.RetryAfter)
			_, err = fx.reg.ApplyAt(now, one("n", control.Int(v+50)))
			require.NoError(t, err, "rate %v, change %d: refused after waiting RetryAfter %v", rate, i, rl.RetryAfter)
		}
		// The wait is not padded: a nanosecond less is still refused.
		v = v%40 + 1
		_, err = fx.reg.ApplyAt(now, one("n", control.Int(v)))
		var rl *control.RateLimitError
		require.ErrorAs(t, err, &rl)
		_, err = fx.reg.ApplyAt(now.Add(rl.RetryAfter-time.Nanosecond), one("n", control.Int(v+50)))
		require.ErrorIs(t, err, control.ErrRateLimited, "rate %v: accepted before RetryAfter %v", rate, rl.RetryAfter)
	}
}
