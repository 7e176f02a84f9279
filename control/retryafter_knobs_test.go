package control_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// TestRetryAfterCoversEveryKnob: a batch that changes two knobs, both within
// their MinInterval, is told the longer wait: waiting RetryAfter and sending
// the batch again is accepted, not refused by the second knob.
func TestRetryAfterCoversEveryKnob(t *testing.T) {
	reg, err := control.New(control.Config{})
	require.NoError(t, err)
	for _, k := range []struct {
		name string
		gap  time.Duration
	}{{"a", time.Second}, {"b", time.Minute}} {
		require.NoError(t, reg.RegisterInt(control.IntKnob{Name: k.name, MinInterval: k.gap,
			Apply: func(int64) error { return nil }}))
	}
	batch := func(v int64) control.Request {
		return control.Request{Who: "t", Changes: []control.Change{
			{Knob: "a", Value: control.Int(v)}, {Knob: "b", Value: control.Int(v)}}}
	}
	_, err = reg.ApplyAt(t0, batch(1))
	require.NoError(t, err)
	_, err = reg.ApplyAt(t0, batch(2))
	var rl *control.RateLimitError
	require.ErrorAs(t, err, &rl)
	require.Equal(t, "b", rl.Knob, "the knob that holds the batch back longest")
	require.Equal(t, time.Minute, rl.RetryAfter)
	// A request that is wrong is told so first: waiting would not help.
	bad := batch(3)
	bad.Changes = append(bad.Changes, control.Change{Knob: "zz", Value: control.Int(1)})
	_, err = reg.ApplyAt(t0, bad)
	require.ErrorIs(t, err, control.ErrUnknownKnob)

	_, err = reg.ApplyAt(t0.Add(rl.RetryAfter), batch(2))
	require.NoError(t, err, "refused after waiting RetryAfter")
}
