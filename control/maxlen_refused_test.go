package control_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// A string longer than its knob's MaxLen is refused as a *ValueError, in a
// request that is not strict too: MaxLen is not a bound a value is clamped
// (cut) into, and nothing is applied.
func TestStringOverMaxLenRefusedNotCut(t *testing.T) {
	reg, err := control.New(control.Config{})
	require.NoError(t, err)
	got := "ok"
	require.NoError(t, reg.RegisterString(control.StringKnob{Name: "s", MaxLen: 4, Value: got,
		Apply: func(v string) error { got = v; return nil }}))
	for _, strict := range []bool{false, true} {
		_, err := reg.Apply(control.Request{Strict: strict, Changes: []control.Change{
			{Knob: "s", Value: control.String(strings.Repeat("x", 5))}}})
		var ve *control.ValueError
		require.ErrorAs(t, err, &ve, "strict %v", strict)
		assert.Contains(t, ve.Reason, "longer than 4 bytes")
		assert.Equal(t, "ok", got, "strict %v: nothing applied", strict)
	}
	v, err := reg.Get("s")
	require.NoError(t, err)
	assert.Equal(t, control.String("ok"), v)
}
