package control_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// TestUnsureRepairSkipsMinInterval: a rollback (exempt from MinInterval)
// that fails, and fails to give a knob back its value, leaves the knob
// Unsure, its component holding the rollback's value. Sending the knob the
// value the registry reports, the repair the docs prescribe, was refused by
// the knob's MinInterval for up to that interval, counted from the change
// the rollback was undoing. Another value still waits for the interval.
func TestUnsureRepairSkipsMinInterval(t *testing.T) {
	reg, err := control.New(control.Config{})
	require.NoError(t, err)
	x, broken := int64(1), false
	require.NoError(t, reg.RegisterInt(control.IntKnob{Name: "x", Value: x, MinInterval: time.Hour,
		Apply: func(v int64) error {
			if broken && v == 5 {
				return errors.New("cannot go back")
			}
			x = v
			return nil
		}}))
	require.NoError(t, reg.RegisterInt(control.IntKnob{Name: "y", Value: 1, Apply: func(v int64) error {
		if broken {
			return errors.New("refused")
		}
		return nil
	}}))

	_, err = reg.ApplyAt(t0, control.Request{Who: "t", Changes: []control.Change{
		{Knob: "y", Value: control.Int(2)}, {Knob: "x", Value: control.Int(5)}}})
	require.NoError(t, err)

	broken = true // the rollback sets x to 1, y refuses, x cannot go back to 5
	_, err = reg.RollbackAt(t0.Add(time.Second), "t", "undo")
	var ae *control.ApplyError
	require.ErrorAs(t, err, &ae)
	require.Len(t, ae.Undo, 1)
	require.Equal(t, int64(1), x)
	v, err := reg.Get("x")
	require.NoError(t, err)
	require.Equal(t, control.Int(5), v, "the registry reports the value x should have")

	broken = false
	at := t0.Add(2 * time.Second)
	_, err = reg.ApplyAt(at, one("x", control.Int(7)))
	require.ErrorIs(t, err, control.ErrRateLimited, "a new value waits for MinInterval")
	res, err := reg.ApplyAt(at, one("x", control.Int(5)))
	require.NoError(t, err, "the repair")
	assert.NotZero(t, res.Batch)
	assert.Equal(t, int64(5), x, "the repair reached the component")
	assert.False(t, reg.Knobs()[0].Unsure)
}
