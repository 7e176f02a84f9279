package control_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// When a batch fails and giving an earlier knob its old value back fails too,
// the component keeps the new value while the registry reports the old one.
// The operator's fix, setting the knob to the value it should have, must reach
// the component: it was taken as a no-op (the registry's value already
// matched), so the component stayed at the value of a refused batch for good.
func TestUndoFailedKnobIsReapplied(t *testing.T) {
	reg, err := control.New(control.Config{})
	require.NoError(t, err)
	a, undoBroken := int64(1), true
	require.NoError(t, reg.RegisterInt(control.IntKnob{Name: "a", Value: a, Apply: func(v int64) error {
		if v == 1 && undoBroken {
			return errors.New("cannot go back")
		}
		a = v
		return nil
	}}))
	require.NoError(t, reg.RegisterInt(control.IntKnob{Name: "b", Value: 1,
		Apply: func(int64) error { return errors.New("refused") }}))

	_, err = reg.Apply(control.Request{Who: "t", Changes: []control.Change{
		{Knob: "a", Value: control.Int(2)}, {Knob: "b", Value: control.Int(2)}}})
	var ae *control.ApplyError
	require.ErrorAs(t, err, &ae)
	require.Len(t, ae.Undo, 1)
	require.Equal(t, int64(2), a, "the component kept the refused batch's value")

	undoBroken = false
	res, err := reg.Apply(control.Request{Who: "operator", Why: "repair", Changes: []control.Change{
		{Knob: "a", Value: control.Int(1)}}})
	require.NoError(t, err)
	assert.Equal(t, int64(1), a, "the operator's change reached the component")
	assert.NotZero(t, res.Batch, "and was audited")

	// Once repaired, the same value is a no-op again.
	res, err = reg.Apply(control.Request{Who: "operator", Changes: []control.Change{{Knob: "a", Value: control.Int(1)}}})
	require.NoError(t, err)
	assert.Zero(t, res.Batch)
	assert.True(t, res.Changes[0].Unchanged)
}
