package control_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// TestStringKnobNegativeMaxLenRefused: a negative MaxLen was taken for the
// default 256 without a word, where every other invalid description (a
// negative MinInterval, Min above Max) is refused at registration. Found by
// a review.
func TestStringKnobNegativeMaxLenRefused(t *testing.T) {
	reg, err := control.New(control.Config{})
	require.NoError(t, err)
	err = reg.RegisterString(control.StringKnob{Name: "s", Value: "x", MaxLen: -1, Apply: func(string) error { return nil }})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "negative MaxLen")
	assert.Empty(t, reg.Knobs(), "nothing registered")
}
