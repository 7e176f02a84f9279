package control_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// A string knob set through the Go API took a value that is not UTF-8, and
// Who, Why and a knob's Doc were kept as given: JSON (the knob list, the audit
// log, GET /control) replaced their bytes with U+FFFD, so the audit could not
// say what a knob was set to or by whom. They are refused: a *ValueError for a
// value, an error matching ErrBadRequest for Who or Why, a registration error
// for a name, Doc or Values; nothing changes.
func TestNotUTF8Refused(t *testing.T) {
	r, err := control.New(control.Config{})
	require.NoError(t, err)
	var set []string
	require.NoError(t, r.RegisterString(control.StringKnob{Name: "mode", Value: "a",
		Apply: func(v string) error { set = append(set, v); return nil }}))

	_, err = r.Apply(control.Request{Who: "op", Changes: []control.Change{{Knob: "mode", Value: control.String("b\xff")}}})
	var ve *control.ValueError
	require.ErrorAs(t, err, &ve)
	for _, req := range []control.Request{
		{Who: "op\xfe", Why: "w", Changes: []control.Change{{Knob: "mode", Value: control.String("b")}}},
		{Who: "op", Why: "w\xc3", Changes: []control.Change{{Knob: "mode", Value: control.String("b")}}},
	} {
		_, err = r.Apply(req)
		require.ErrorIs(t, err, control.ErrBadRequest, "who %q why %q", req.Who, req.Why)
	}
	assert.Empty(t, set, "a refused change reached the component")
	assert.Empty(t, r.Audit())

	_, err = r.Apply(control.Request{Who: "op", Why: "ok", Changes: []control.Change{{Knob: "mode", Value: control.String("b")}}})
	require.NoError(t, err)
	_, err = r.Rollback("op\xff", "undo")
	require.ErrorIs(t, err, control.ErrBadRequest)
	_, err = r.Rollback("op", "undo\xff")
	require.ErrorIs(t, err, control.ErrBadRequest)

	// What is audited round-trips through JSON.
	data, err := json.Marshal(r.Audit())
	require.NoError(t, err)
	var back []control.Entry
	require.NoError(t, json.Unmarshal(data, &back))
	require.Len(t, back, 1)
	a := r.Audit()[0]
	assert.Equal(t, []string{a.Who, a.Why, a.New.String()}, []string{back[0].Who, back[0].Why, back[0].New.String()})

	noop := func(string) error { return nil }
	for _, k := range []control.StringKnob{
		{Name: "doc", Doc: "bad \xff doc", Value: "a", Apply: noop},
		{Name: "enum", Values: []string{"a", "b\xff"}, Value: "a", Apply: noop},
		{Name: "init", Value: "a\xff", Apply: noop},
		{Name: "name\xff", Value: "a", Apply: noop},
	} {
		require.Error(t, r.RegisterString(k), "knob %q", k.Name)
	}
	require.Error(t, r.RegisterInt(control.IntKnob{Name: "i", Doc: "\xff", Apply: func(int64) error { return nil }}))
	require.Len(t, r.Knobs(), 1)
}
