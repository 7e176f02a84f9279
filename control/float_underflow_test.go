package control_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// A float knob's JSON number too small for a float64 is refused, as one too
// large is: strconv.ParseFloat reads 1e-400 as 0 without an error, so a
// client asking for a tiny positive value had the knob set to 0 (a value a
// component may read as "use the default"), or was told it was unchanged.
// A zero spelled any way, and the smallest float64 numbers, still apply.
func TestFloatUnderflowRefused(t *testing.T) {
	for _, lit := range []string{"1e-400", "-1e-400", "0.00000000000000000001e-310", "2e-324"} {
		fx := newFixture(t, control.Config{})
		req, err := control.DecodeRequest([]byte(`{"who":"t","changes":[{"knob":"f","value":` + lit + `}]}`))
		require.NoError(t, err, lit)
		_, err = fx.reg.ApplyAt(t0, req)
		var ve *control.ValueError
		require.ErrorAs(t, err, &ve, lit)
		assert.Equal(t, 0.5, fx.f, lit)
	}
	for _, lit := range []string{"0", "-0", "0.0e-400", "0e999", "5e-324", "3e-324"} {
		fx := newFixture(t, control.Config{})
		req, err := control.DecodeRequest([]byte(`{"who":"t","changes":[{"knob":"f","value":` + lit + `}]}`))
		require.NoError(t, err, lit)
		res, err := fx.reg.ApplyAt(t0, req)
		require.NoError(t, err, lit)
		assert.Equal(t, res.Changes[0].New.Float(), fx.f, lit)
	}
}
