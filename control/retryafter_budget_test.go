package control_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// TestRetryAfterKnobCoversBudget: a change refused by its knob's
// MinInterval while the change budget is empty too is told the wait until
// both allow it, not the knob's alone, after which the budget refused it.
func TestRetryAfterKnobCoversBudget(t *testing.T) {
	for _, dry := range []bool{false, true} {
		reg, err := control.New(control.Config{Rate: 1.0 / 60, Burst: 1})
		require.NoError(t, err)
		require.NoError(t, reg.RegisterInt(control.IntKnob{Name: "a", MinInterval: time.Second,
			Apply: func(int64) error { return nil }}))
		_, err = reg.ApplyAt(t0, one("a", control.Int(1)))
		require.NoError(t, err)
		at := t0.Add(time.Second / 2)
		req := one("a", control.Int(2))
		req.DryRun = dry
		_, err = reg.ApplyAt(at, req)
		var rl *control.RateLimitError
		require.ErrorAs(t, err, &rl)
		// The knob allows it at t0+1s, the budget at t0+60s.
		require.Equal(t, t0.Add(time.Minute), at.Add(rl.RetryAfter), "dry run %v", dry)
		_, err = reg.ApplyAt(at.Add(rl.RetryAfter), one("a", control.Int(2)))
		require.NoError(t, err, "dry run %v: refused after waiting RetryAfter", dry)
	}
}
