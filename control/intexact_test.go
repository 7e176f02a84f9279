package control_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// A JSON number for an int knob is taken when it is an integer (7, 7.0,
// 1.5e3) and refused otherwise (7.5): exactly, not after rounding to a
// float64, which has 53 bits and would apply a neighbour of the number sent.
// An exponent above 20 counts in full when the mantissa has fraction digits:
// 0.001e25 is 1e22, too large (it was applied as 1e17), and
// 0.00000000000000000000001e25 is 100 (it was refused).
func TestIntKnobJSONExact(t *testing.T) {
	tests := []struct {
		give string
		want int64
		ok   bool
	}{
		{`7.0`, 7, true},
		{`1.5e3`, 1500, true},
		{`-2E+2`, -200, true},
		{`0.0e-5`, 0, true},
		{`120e-1`, 12, true},
		{`-9223372036854775808.0`, -9223372036854775808, true},
		{`9223372036854775807.00`, 9223372036854775807, true},
		{`9007199254740993.0`, 9007199254740993, true},
		{`100e-2`, 1, true},
		{`-0.0`, 0, true},
		{`0e99999999999999999999`, 0, true},
		{`0.00000000000000000000001e25`, 100, true},
		{`-0.00000000000000000000009223372036854775807e41`, -9223372036854775807, true},
		{`7.5`, 0, false},
		{`1e99999999999999999999`, 0, false},
		{`1e-99999999999999999999`, 0, false},
		{`4503599627370496.5`, 0, false},
		{`9007199254740993.1`, 0, false},
		{`1e-400`, 0, false},
		{`1e400`, 0, false},
		{`9223372036854775808.0`, 0, false},
		{`0.00000000000000000000001e45`, 0, false},
		{`0.001e25`, 0, false},
		{`-0.00792e29`, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.give, func(t *testing.T) {
			reg, err := control.New(control.Config{})
			require.NoError(t, err)
			var got int64 = 1
			require.NoError(t, reg.RegisterInt(control.IntKnob{Name: "n", Value: 1,
				Apply: func(v int64) error { got = v; return nil }}))
			req, err := control.DecodeRequest([]byte(`{"changes":[{"knob":"n","value":` + tt.give + `}]}`))
			require.NoError(t, err)
			_, err = reg.Apply(req)
			if !tt.ok {
				var ve *control.ValueError
				require.ErrorAs(t, err, &ve)
				assert.Equal(t, int64(1), got, "nothing applied")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
