package control_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// undoPanicRig registers a and d (plain), b (whose Apply panics when given
// back 1 while undoBroken) and c (which fails every change with fail), and
// spends one token of a Rate 1, Burst 2 budget at t0 on d.
type undoPanicRig struct {
	reg        *control.Registry
	a, b       int64
	undoBroken bool
	t0         time.Time
}

func newUndoPanicRig(t *testing.T, fail func()) *undoPanicRig {
	t.Helper()
	reg, err := control.New(control.Config{Rate: 1, Burst: 2})
	require.NoError(t, err)
	g := &undoPanicRig{reg: reg, a: 1, b: 1, undoBroken: true, t0: time.Unix(1_000_000, 0)}
	require.NoError(t, reg.RegisterInt(control.IntKnob{Name: "a", Value: 1,
		Apply: func(v int64) error { g.a = v; return nil }}))
	require.NoError(t, reg.RegisterInt(control.IntKnob{Name: "b", Value: 1, Apply: func(v int64) error {
		if v == 1 && g.undoBroken {
			panic("b cannot go back")
		}
		g.b = v
		return nil
	}}))
	require.NoError(t, reg.RegisterInt(control.IntKnob{Name: "c", Value: 1,
		Apply: func(int64) error { fail(); return errors.New("c refused") }}))
	require.NoError(t, reg.RegisterInt(control.IntKnob{Name: "d", Value: 1,
		Apply: func(int64) error { return nil }}))
	_, err = reg.ApplyAt(g.t0, control.Request{Who: "t", Changes: []control.Change{{Knob: "d", Value: control.Int(2)}}})
	require.NoError(t, err)
	return g
}

func (g *undoPanicRig) batch() (control.Result, error) {
	return g.reg.ApplyAt(g.t0, control.Request{Who: "t", Changes: []control.Change{
		{Knob: "a", Value: control.Int(2)}, {Knob: "b", Value: control.Int(2)}, {Knob: "c", Value: control.Int(2)}}})
}

// check asserts what a failed batch whose undo of b panicked must leave: a
// given back its old value, the registry reporting the old values, nothing
// audited, one Apply failure, the budget refunded exactly once, and b
// re-applied at its next change even to the value the registry reports.
func (g *undoPanicRig) check(t *testing.T) {
	t.Helper()
	assert.Equal(t, int64(1), g.a, "a, undone after b, got its old value back")
	for _, n := range []string{"a", "b", "c"} {
		v, err := g.reg.Get(n)
		require.NoError(t, err)
		assert.Equal(t, control.Int(1), v, "the registry reports %s's old value", n)
	}
	assert.Len(t, g.reg.Audit(), 1, "only d's change is audited")
	assert.Equal(t, uint64(1), g.reg.Stats().ApplyFailed)

	g.undoBroken = false
	res, err := g.reg.ApplyAt(g.t0, control.Request{Who: "operator", Why: "repair", Changes: []control.Change{
		{Knob: "b", Value: control.Int(1)}}})
	require.NoError(t, err, "the failed batch's token was refunded")
	assert.NotZero(t, res.Batch, "b, whose undo panicked, is re-applied to the value the registry reports")
	assert.Equal(t, int64(1), g.b)
	_, err = g.reg.ApplyAt(g.t0, control.Request{Who: "t", Changes: []control.Change{{Knob: "d", Value: control.Int(3)}}})
	assert.ErrorIs(t, err, control.ErrRateLimited, "the token was refunded once, not twice")
}

// An Apply func that panics fails its batch, and the undo gives the knobs
// before it their old values back as the panic unwinds. When an undo's Apply
// panicked too, the second panic replaced the first (the caller saw the undo's
// panic, not the component bug that failed the batch) and the undos after it
// were skipped: a kept the batch's value while the registry reported the old
// one, and neither a nor b was marked to be re-applied.
func TestUndoPanicDuringApplyPanic(t *testing.T) {
	g := newUndoPanicRig(t, func() { panic("c broke") })
	assert.PanicsWithValue(t, "c broke", func() { _, _ = g.batch() }, "the caller sees the first panic")
	g.check(t)
}

// An Apply func that returns an error fails its batch with an *ApplyError.
// When an undo's Apply panicked, nothing handled it: the panic went on to the
// caller in place of the error, the undos after it were skipped, and b was
// not marked to be re-applied. The panic is now one of the undo's errors.
func TestUndoPanicDuringApplyError(t *testing.T) {
	g := newUndoPanicRig(t, func() {})
	var err error
	require.NotPanics(t, func() { _, err = g.batch() }, "the caller gets the first error, not the undo's panic")
	var ae *control.ApplyError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, "c", ae.Knob)
	assert.EqualError(t, ae.Err, "c refused")
	require.Len(t, ae.Undo, 1)
	assert.ErrorContains(t, ae.Undo[0], `restore "b" to 1: panic: b cannot go back`)
	g.check(t)
}

// When a panic fails a batch, the caller sees only that panic: the undo whose
// Apply panicked too is recorded nowhere the caller or an operator can read
// (no *ApplyError, nothing audited), so b was left in an unknown state
// (its component may hold 2, the registry reports 1) and nothing said so.
// GET /knobs now marks b, and c that panicked, as unsure until repaired.
func TestUndoPanicDuringApplyPanicIsReported(t *testing.T) {
	g := newUndoPanicRig(t, func() { panic("c broke") })
	require.PanicsWithValue(t, "c broke", func() { _, _ = g.batch() })

	unsure := func() map[string]bool {
		rec := httptest.NewRecorder()
		g.reg.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/knobs", nil))
		require.Equal(t, http.StatusOK, rec.Code)
		var infos []map[string]any
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &infos))
		out := map[string]bool{}
		for _, in := range infos {
			if in["unsure"] == true {
				out[in["name"].(string)] = true
			}
		}
		return out
	}
	assert.Equal(t, map[string]bool{"b": true, "c": true}, unsure(),
		"b's undo panicked and c panicked: their components may hold anything")

	g.undoBroken = false
	_, err := g.reg.ApplyAt(g.t0, control.Request{Who: "operator", Why: "repair", Changes: []control.Change{
		{Knob: "b", Value: control.Int(1)}}})
	require.NoError(t, err)
	assert.Equal(t, map[string]bool{"c": true}, unsure(), "the repair clears b's mark")
}
