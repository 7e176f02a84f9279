package control_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// A rollback of a clamped change restores the value before it, not the value
// requested or the bound; the rollback's own entry is not clamped.
func TestRollbackOfClampedChange(t *testing.T) {
	fx := newFixture(t, control.Config{})
	res, err := fx.reg.ApplyAt(t0, control.Request{Changes: []control.Change{
		{Knob: "n", Value: control.Int(1000)}, {Knob: "f", Value: control.Float(-3)}}})
	require.NoError(t, err)
	require.True(t, res.Changes[0].Clamped)
	require.True(t, res.Changes[1].Clamped)
	require.Equal(t, int64(100), fx.n)
	res, err = fx.reg.RollbackAt(t0, "ops", "undo")
	require.NoError(t, err)
	assert.Equal(t, int64(10), fx.n)
	assert.Equal(t, 0.5, fx.f)
	for _, o := range res.Changes {
		assert.False(t, o.Clamped, o.Knob)
	}
	a := fx.reg.Audit()
	require.Len(t, a, 4)
	assert.Equal(t, []bool{true, true, false, false}, []bool{a[0].Clamped, a[1].Clamped, a[2].Clamped, a[3].Clamped})
	checkAudit(t, fx.reg)
}

// The audit log holds at most AuditSize entries, a batch larger than that
// included: it is recorded in part and cannot be rolled back (Config.AuditSize).
func TestAuditBoundLargeBatch(t *testing.T) {
	fx := newFixture(t, control.Config{AuditSize: 2})
	_, err := fx.reg.ApplyAt(t0, control.Request{Changes: []control.Change{
		{Knob: "n", Value: control.Int(20)}, {Knob: "f", Value: control.Float(0.1)},
		{Knob: "b", Value: control.Bool(true)}}})
	require.NoError(t, err)
	assert.Len(t, fx.reg.Audit(), 2)
	assert.Equal(t, uint64(1), fx.reg.Stats().Evicted)
	_, err = fx.reg.RollbackAt(t0, "ops", "")
	require.ErrorIs(t, err, control.ErrNothingToRollback)
	assert.Equal(t, int64(20), fx.n)
}
