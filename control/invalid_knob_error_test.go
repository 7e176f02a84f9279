package control_test

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// TestRegisterRefusalsWrapErrInvalidKnob checks that every refused
// registration, knob or state, can be matched with errors.Is (they were
// untyped), that the duplicate name keeps its own sentinel, and that nothing
// refused is registered.
func TestRegisterRefusalsWrapErrInvalidKnob(t *testing.T) {
	reg, err := control.New(control.Config{})
	require.NoError(t, err)
	apply := func(int64) error { return nil }
	applyF := func(float64) error { return nil }
	applyS := func(string) error { return nil }
	for _, tc := range []struct {
		name string
		reg  func() error
	}{
		{"no name", func() error { return reg.RegisterInt(control.IntKnob{Apply: apply}) }},
		{"space in name", func() error { return reg.RegisterInt(control.IntKnob{Name: "a b", Apply: apply}) }},
		{"name not UTF-8", func() error { return reg.RegisterInt(control.IntKnob{Name: "a\xff", Apply: apply}) }},
		{"no apply", func() error { return reg.RegisterInt(control.IntKnob{Name: "x"}) }},
		{"min above max", func() error { return reg.RegisterInt(control.IntKnob{Name: "x", Min: 5, Max: 1, Apply: apply}) }},
		{"negative MinInterval", func() error { return reg.RegisterInt(control.IntKnob{Name: "x", MinInterval: -1, Apply: apply}) }},
		{"infinite bound", func() error {
			return reg.RegisterFloat(control.FloatKnob{Name: "x", Min: 0, Max: math.Inf(1), Apply: applyF})
		}},
		{"initial value out of bounds", func() error {
			return reg.RegisterInt(control.IntKnob{Name: "x", Min: 1, Max: 5, Value: 9, Apply: apply})
		}},
		{"negative MaxLen", func() error { return reg.RegisterString(control.StringKnob{Name: "x", MaxLen: -1, Apply: applyS}) }},
		{"state without func", func() error { return reg.RegisterState("s", nil) }},
		{"state name not UTF-8", func() error { return reg.RegisterState("s\xff", func() any { return 1 }) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.reg()
			require.Error(t, err)
			assert.True(t, errors.Is(err, control.ErrInvalidKnob), "%v", err)
			assert.False(t, errors.Is(err, control.ErrDuplicateKnob))
		})
	}
	assert.Empty(t, reg.Knobs(), "a refused knob was registered")
	require.NoError(t, reg.RegisterInt(control.IntKnob{Name: "x", Max: 5, Apply: apply}))
	err = reg.RegisterInt(control.IntKnob{Name: "x", Max: 5, Apply: apply})
	assert.True(t, errors.Is(err, control.ErrDuplicateKnob), "%v", err)
	assert.False(t, errors.Is(err, control.ErrInvalidKnob))
}
