package main

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// TestControlChangeBudget: /control's changes are rate-limited as the README
// says: 20 requests back to back, then one per 100 ms (10 a second), and aimd.target
// at most once a second; a refusal is a *control.RateLimitError (429
// rate_limited over HTTP) that changes nothing. No test held the gateway to
// its budget: it could be dropped (Rate 0) without a test failing.
func TestControlChangeBudget(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-"})
	now := time.Now()
	linger := func(i int) control.Change {
		return control.Change{Knob: "batcher.linger", Value: control.Duration(time.Duration(100+i%2) * time.Microsecond)}
	}
	for i := range 20 {
		_, err := in.reg.ApplyAt(now, control.Request{Who: "test", Changes: []control.Change{linger(i)}})
		require.NoError(t, err, "change %d of the burst", i+1)
	}
	_, err := in.reg.ApplyAt(now, control.Request{Who: "test", Changes: []control.Change{linger(20)}})
	var rl *control.RateLimitError
	require.True(t, errors.As(err, &rl), "the 21st change at once: %v", err)
	assert.Equal(t, 100*time.Millisecond, rl.RetryAfter, "10 changes a second")
	assert.Equal(t, 101*time.Microsecond, in.gw.batches.Config().Linger, "the refused change was not applied")
	_, err = in.reg.ApplyAt(now.Add(100*time.Millisecond), control.Request{Who: "test", Changes: []control.Change{linger(20)}})
	require.NoError(t, err, "one more after 100 ms")

	later := now.Add(time.Minute) // the budget full again
	target := func(f float64) control.Request {
		return control.Request{Who: "test", Changes: []control.Change{{Knob: "aimd.target", Value: control.Float(f)}}}
	}
	_, err = in.reg.ApplyAt(later, target(0.8))
	require.NoError(t, err)
	_, err = in.reg.ApplyAt(later.Add(999*time.Millisecond), target(0.7))
	require.True(t, errors.As(err, &rl), "aimd.target again within a second: %v", err)
	assert.Equal(t, 0.8, in.gw.limiter.Config().Target)
	_, err = in.reg.ApplyAt(later.Add(time.Second), target(0.7))
	require.NoError(t, err, "aimd.target again after a second")
	assert.Equal(t, 0.7, in.gw.limiter.Config().Target)
}
