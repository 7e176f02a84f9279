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

// invalidConfigs lists one Config per invalid field value, with the message
// that names it.
var invalidConfigs = []struct {
	name string
	give control.Config
	want string
}{
	{"AuditSize", control.Config{AuditSize: -1}, "control: AuditSize -1 < 0"},
	{"Rate negative", control.Config{Rate: -1}, "control: Rate -1 is not a finite number >= 0"},
	{"Rate NaN", control.Config{Rate: math.NaN()}, "control: Rate NaN is not a finite number >= 0"},
	{"Rate Inf", control.Config{Rate: math.Inf(1)}, "control: Rate +Inf is not a finite number >= 0"},
	{"Burst negative", control.Config{Rate: 1, Burst: -1}, "control: Burst -1 < 0"},
	{"Burst without Rate", control.Config{Burst: 2}, "control: Burst 2 without a Rate"},
	{"AllowedHosts empty", control.Config{AllowedHosts: []string{""}},
		`control: AllowedHosts entry "" is not a host name or IP address without port`},
	{"AllowedHosts port", control.Config{AllowedHosts: []string{"localhost:8080"}},
		`control: AllowedHosts entry "localhost:8080" is not a host name or IP address without port`},
	{"AllowedHosts brackets", control.Config{AllowedHosts: []string{"[::1]"}},
		`control: AllowedHosts entry "[::1]" is not a host name or IP address without port`},
	// A wildcard was accepted and matched no Host, so "*" (meant as "any")
	// refused every request with 403; the control plane refuses it.
	{"AllowedHosts wildcard", control.Config{AllowedHosts: []string{"localhost", "*"}},
		`control: AllowedHosts entry "*" is a wildcard, which matches no Host (leave AllowedHosts empty to answer any)`},
	{"AllowedHosts wildcard domain", control.Config{AllowedHosts: []string{"*.example.com"}},
		`control: AllowedHosts entry "*.example.com" is a wildcard, which matches no Host (leave AllowedHosts empty to answer any)`},
}

func TestConfigErrorsWrapErrInvalidConfig(t *testing.T) {
	for _, tt := range invalidConfigs {
		t.Run(tt.name, func(t *testing.T) {
			_, err := control.New(tt.give)
			require.ErrorIs(t, err, control.ErrInvalidConfig, "New")
			assert.EqualError(t, err, tt.want+": invalid config", "New")

			reg, err := control.New(control.Config{})
			require.NoError(t, err)
			err = reg.SetConfig(tt.give)
			require.ErrorIs(t, err, control.ErrInvalidConfig, "SetConfig")
			assert.EqualError(t, err, tt.want+": invalid config", "SetConfig")
			err = reg.SetConfigAt(time.Unix(1_700_000_000, 0), tt.give)
			require.ErrorIs(t, err, control.ErrInvalidConfig, "SetConfigAt")
		})
	}
}

// TestSetConfigInvalidKeepsPrevious: a refused SetConfig changes nothing, not
// even the fields of the refused Config that were valid: the host guard and
// the absent change budget stay as they were.
func TestSetConfigInvalidKeepsPrevious(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	reg, err := control.New(control.Config{AllowedHosts: []string{"localhost"}})
	require.NoError(t, err)
	require.NoError(t, reg.RegisterInt(control.IntKnob{Name: "x", Max: 100, Apply: func(int64) error { return nil }}))
	for _, tt := range invalidConfigs {
		bad := tt.give
		if bad.AllowedHosts == nil {
			bad.AllowedHosts = []string{"evil.example"} // would refuse localhost
		}
		if bad.Rate == 0 && bad.Burst == 0 {
			bad.Rate = 1e-9 // would allow one change, then none for ages
		}
		require.ErrorIs(t, reg.SetConfigAt(now, bad), control.ErrInvalidConfig, tt.name)
	}
	for i := range 3 {
		_, err := reg.ApplyAt(now, control.Request{Who: "t", Changes: []control.Change{{Knob: "x", Value: control.Int(int64(i + 1))}}})
		require.NoError(t, err, "change %d: no budget is in force", i)
	}
	h := reg.Handler()
	for host, code := range map[string]int{"localhost": http.StatusOK, "evil.example": http.StatusForbidden} {
		req := httptest.NewRequest(http.MethodGet, "/knobs", nil)
		req.Host = host
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		assert.Equal(t, code, rec.Code, host)
	}
}
