package control_test

import (
	"math"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// A duration a knob is sent is taken when it is a whole number of
// nanoseconds and refused otherwise (a *ValueError, 400 invalid_value), as an
// int knob's 7.5 is: time.ParseDuration drops the rest of each number, so
// "1.5ns" was applied as 1ns (Requested showed 1ns) and "1.0000000005s" as
// 1s, a value the client never sent, with no error.
func TestDurationKnobExact(t *testing.T) {
	tests := []struct {
		give string
		want time.Duration
		ok   bool
	}{
		{`1.5ms`, 1500 * time.Microsecond, true},
		{`1.50s`, 1500 * time.Millisecond, true},
		{`0.1m`, 6 * time.Second, true},
		{`0.0001h`, 360 * time.Millisecond, true},
		{`1.000000001s`, time.Second + 1, true},
		{`0.00000000001h`, 36, true},
		{`0.0000000000025h`, 9, true},
		{`1.5µs`, 1500, true},
		{`1.5us`, 1500, true},
		{`-2.5us`, -2500, true},
		{`1h0.5m3.000s`, time.Hour + 33*time.Second, true},
		{`0`, 0, true},
		{`7ns`, 7, true},
		{`.00000022000000h`, 792 * time.Microsecond, true},
		{`0.00000000000750h`, 27, true},
		{`2562047h47m16.854775807s`, math.MaxInt64, true},
		{`-2562047h47m16.854775808s`, math.MinInt64, true},
		{`1.5ns`, 0, false},
		{`0.5ns`, 0, false},
		{`1.0000000005s`, 0, false},
		{`0.0001us`, 0, false},
		{`1s0.5ns`, 0, false},
		{`0.5ns0.5ns`, 0, false},
		{`0.000000000001h`, 0, false},
		{`0.00000000000025h`, 0, false},
		{`1.00000000000000000000000000001ms`, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.give, func(t *testing.T) {
			reg, err := control.New(control.Config{})
			require.NoError(t, err)
			got := time.Duration(42)
			require.NoError(t, reg.RegisterDuration(control.DurationKnob{Name: "d", Value: got,
				Apply: func(v time.Duration) error { got = v; return nil }}))
			req, err := control.DecodeRequest([]byte(`{"changes":[{"knob":"d","value":"` + tt.give + `"}]}`))
			require.NoError(t, err)
			res, err := reg.Apply(req)
			if !tt.ok {
				var ve *control.ValueError
				require.ErrorAs(t, err, &ve)
				assert.Equal(t, time.Duration(42), got, "nothing applied")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.want, res.Changes[0].Requested.Duration())
		})
	}
}

// TestDurationKnobExactHTTP: over HTTP the refusal is 400 invalid_value, and
// a string Value from the Go API is refused the same way.
func TestDurationKnobExactHTTP(t *testing.T) {
	fx := newFixture(t, control.Config{})
	rec := httptest.NewRecorder()
	fx.reg.Handler().ServeHTTP(rec, postJSON("/", `{"changes": [{"knob": "d", "value": "2.0000000005s"}]}`))
	require.Equal(t, http.StatusBadRequest, rec.Code, rec.Body.String())
	assert.Contains(t, rec.Body.String(), `"invalid_value"`)
	assert.Contains(t, rec.Body.String(), "nanoseconds")

	_, err := fx.reg.ApplyAt(t0, one("d", control.String("2.0000000005s")))
	var ve *control.ValueError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, time.Second, fx.d, "nothing applied")
	st := fx.reg.Stats()
	assert.Equal(t, uint64(2), st.Rejected)
}
