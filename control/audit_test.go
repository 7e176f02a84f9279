package control_test

import (
	"testing"
	"time"

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

// A knob's last change never moves back in time. A RollbackAt (or a
// Rollback after the wall clock stepped back) can run after a change stamped
// later; taking its earlier time as the knob's last change let the next
// change through before the knob's MinInterval after that later one.
func TestRollbackStampedEarlierKeepsMinInterval(t *testing.T) {
	reg, err := control.New(control.Config{})
	require.NoError(t, err)
	var x int64
	require.NoError(t, reg.RegisterInt(control.IntKnob{Name: "x", MinInterval: time.Minute,
		Apply: func(v int64) error { x = v; return nil }}))
	_, err = reg.ApplyAt(t0.Add(10*time.Second), one("x", control.Int(1)))
	require.NoError(t, err)
	_, err = reg.RollbackAt(t0, "ops", "clock read before the change took the lock")
	require.NoError(t, err)
	require.Equal(t, int64(0), x)
	_, err = reg.ApplyAt(t0.Add(61*time.Second), one("x", control.Int(2)))
	var rl *control.RateLimitError
	require.ErrorAs(t, err, &rl, "61 s after t0 is 51 s after the change at t0+10s")
	assert.Equal(t, 9*time.Second, rl.RetryAfter)
	assert.Equal(t, int64(0), x)
}

// The audit log's times never go back in log order. Apply and Rollback read
// the clock under the registry's lock, but the wall clock can step back and
// ApplyAt and RollbackAt callers pass times out of order; the explicit times
// below replay that. The late entries are stamped with the time of the entry
// before them.
func TestAuditTimesMonotonic(t *testing.T) {
	fx := newFixture(t, control.Config{})
	_, err := fx.reg.ApplyAt(t0.Add(10*time.Second), one("n", control.Int(20)))
	require.NoError(t, err)
	_, err = fx.reg.ApplyAt(t0, one("f", control.Float(0.1)))
	require.NoError(t, err)
	_, err = fx.reg.RollbackAt(t0.Add(5*time.Second), "ops", "read the clock before the change above")
	require.NoError(t, err)
	_, err = fx.reg.ApplyAt(t0.Add(20*time.Second), one("b", control.Bool(true)))
	require.NoError(t, err)

	var got []time.Duration
	for _, e := range fx.reg.Audit() {
		got = append(got, e.Time.Sub(t0))
	}
	want := []time.Duration{10 * time.Second, 10 * time.Second, 10 * time.Second, 20 * time.Second}
	assert.Equal(t, want, got)
	checkAudit(t, fx.reg)
}
