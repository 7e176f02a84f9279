package control_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// The zero time.Time is how the registry marks a knob never changed and a
// budget never refilled. Taken as an explicit now (a fake clock starting at
// time.Time{}), it went unrecorded: the knob's next change skipped its
// MinInterval, and the budget spent then earned nothing for the time after
// it. ApplyAt and RollbackAt refuse it, and nothing changes.
func TestApplyAtZeroTime(t *testing.T) {
	reg, err := control.New(control.Config{Rate: 1, Burst: 1})
	require.NoError(t, err)
	var x int64
	require.NoError(t, reg.RegisterInt(control.IntKnob{Name: "x", MinInterval: time.Minute,
		Apply: func(v int64) error { x = v; return nil }}))
	var zero time.Time
	set := func(v int64) control.Request {
		return control.Request{Who: "t", Changes: []control.Change{{Knob: "x", Value: control.Int(v)}}}
	}

	_, err = reg.ApplyAt(zero, set(1))
	require.ErrorIs(t, err, control.ErrBadRequest)
	_, err = reg.RollbackAt(zero, "t", "")
	require.ErrorIs(t, err, control.ErrBadRequest)
	assert.Equal(t, int64(0), x, "nothing applied")
	assert.Empty(t, reg.Audit())
	s := reg.Stats()
	assert.Equal(t, uint64(2), s.Requests)
	assert.Equal(t, uint64(2), s.Rejected)

	// A fake clock one step past the zero time keeps both limits.
	t1 := zero.Add(time.Second)
	_, err = reg.ApplyAt(t1, set(1))
	require.NoError(t, err)
	_, err = reg.ApplyAt(t1.Add(2*time.Second), set(2))
	var rl *control.RateLimitError
	require.ErrorAs(t, err, &rl, "MinInterval holds")
	assert.Equal(t, "x", rl.Knob)
	assert.Equal(t, time.Minute-2*time.Second, rl.RetryAfter)
	_, err = reg.ApplyAt(t1.Add(time.Minute), set(2))
	require.NoError(t, err, "the budget earned in the minute")
	assert.Equal(t, int64(2), x)
}
