package control_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// A dry run changes nothing, the change budget included. Callers of ApplyAt
// (and a wall clock stepped back) arrive out of time order; a preview stamped
// 10 s after a real change must not credit that change the budget earned by
// then. At 0.1 change per second
// the budget spent at t0 holds a tenth of a change at t0+1s: refused, with
// or without a preview in between.
func TestDryRunLeavesBudget(t *testing.T) {
	for _, preview := range []bool{false, true} {
		fx := newFixture(t, control.Config{Rate: 0.1, Burst: 1})
		_, err := fx.reg.ApplyAt(t0, one("n", control.Int(20)))
		require.NoError(t, err)
		if preview {
			req := one("n", control.Int(30))
			req.DryRun = true
			_, err := fx.reg.ApplyAt(t0.Add(10*time.Second), req)
			require.NoError(t, err, "the budget holds a change at t0+10s")
		}
		_, err = fx.reg.ApplyAt(t0.Add(time.Second), one("n", control.Int(21)))
		require.ErrorIs(t, err, control.ErrRateLimited, "preview %v", preview)
		assert.Equal(t, int64(20), fx.n, "preview %v", preview)
	}
}

// A caller refused in a dry run that waits its RetryAfter is accepted, as
// one refused by a real request is (TestRetryAfterIsEnough): the wait counts
// from the budget as stored, which the dry run did not refill.
func TestDryRunRetryAfterIsEnough(t *testing.T) {
	for _, rate := range []float64{0.3, 0.7, 1.0 / 3, 3, 7, 13, 1000.0 / 3} {
		fx := newFixture(t, control.Config{Rate: rate, Burst: 1})
		now, v := t0, int64(1)
		_, err := fx.reg.ApplyAt(now, one("n", control.Int(50)))
		require.NoError(t, err)
		for i := range 20 {
			v = v%40 + 1
			now = now.Add(time.Millisecond) // less than a change earns
			req := one("n", control.Int(v))
			req.DryRun = true
			_, err := fx.reg.ApplyAt(now, req)
			var rl *control.RateLimitError
			require.ErrorAs(t, err, &rl, "rate %v, change %d", rate, i)
			now = now.Add(rl.RetryAfter)
			_, err = fx.reg.ApplyAt(now, one("n", control.Int(v+50)))
			require.NoError(t, err, "rate %v, change %d: refused after waiting RetryAfter %v", rate, i, rl.RetryAfter)
		}
	}
}
