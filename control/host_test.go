package control_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/control"
)

// Config.AllowedHosts guards a loopback handler against DNS rebinding: a
// request whose Host is not listed is refused with 403 forbidden_host before
// routing, POSTs and unknown paths included. Without the list any Host is
// answered, as before.
func TestHTTPAllowedHosts(t *testing.T) {
	loopback := []string{"localhost", "127.0.0.1", "::1"}
	tests := []struct {
		name       string
		allowed    []string
		method     string
		path       string
		host       string
		wantStatus int
		wantCode   string // "" for a successful answer
	}{
		{"no list, any host", nil, "GET", "/control/stats", "evil.example", 200, ""},
		{"name", loopback, "GET", "/control/stats", "localhost", 200, ""},
		{"name with port", loopback, "GET", "/control/stats", "localhost:8080", 200, ""},
		{"case", loopback, "GET", "/control/stats", "LocalHost:8080", 200, ""},
		{"ipv4 with port", loopback, "GET", "/control/stats", "127.0.0.1:9", 200, ""},
		{"ipv6 with port", loopback, "GET", "/control/stats", "[::1]:8080", 200, ""},
		{"ipv6 without port", loopback, "GET", "/control/stats", "[::1]", 200, ""},
		{"rebound name", loopback, "GET", "/control/stats", "evil.example:8080", 403, "forbidden_host"},
		{"rebound name posts", loopback, "POST", "/control/", "evil.example", 403, "forbidden_host"},
		{"rebound name rolls back", loopback, "POST", "/control/rollback", "evil.example", 403, "forbidden_host"},
		{"before routing", loopback, "GET", "/control/nope", "evil.example", 403, "forbidden_host"},
		{"suffix", loopback, "GET", "/control/", "localhost.evil.example", 403, "forbidden_host"},
		{"no host", loopback, "GET", "/control/", "", 403, "forbidden_host"},
		{"allowed, unknown path", loopback, "GET", "/control/nope", "localhost", 404, "not_found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx := newFixture(t, control.Config{AllowedHosts: tt.allowed})
			h := http.StripPrefix("/control", fx.reg.Handler())
			req := httptest.NewRequest(tt.method, tt.path,
				strings.NewReader(`{"who":"w","changes":[{"knob":"n","value":20}]}`))
			req.Header.Set("Content-Type", "application/json")
			req.Host = tt.host
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			assert.Equal(t, tt.wantStatus, rec.Code, rec.Body.String())
			var body struct{ Error, Code string }
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body))
			assert.Equal(t, tt.wantCode, body.Code)
			if tt.wantCode == "forbidden_host" {
				assert.Equal(t, int64(10), fx.n, "nothing changed")
				assert.Empty(t, fx.reg.Audit())
			}
		})
	}
}

func TestConfigAllowedHostsValidate(t *testing.T) {
	tests := []struct {
		give    []string
		wantErr bool
	}{
		{nil, false},
		{[]string{"localhost", "127.0.0.1", "::1", "gw.internal"}, false},
		{[]string{""}, true},
		{[]string{"localhost:8080"}, true},
		{[]string{"[::1]"}, true},
		{[]string{"local host"}, true},
	}
	for _, tt := range tests {
		_, err := control.New(control.Config{AllowedHosts: tt.give})
		assert.Equal(t, tt.wantErr, err != nil, "%q: %v", tt.give, err)
	}
}

// SetConfig swaps the allowed hosts of a handler already serving, and the
// registry keeps its own copy of the list.
func TestAllowedHostsSetConfig(t *testing.T) {
	hosts := []string{"localhost"}
	fx := newFixture(t, control.Config{AllowedHosts: hosts})
	h := fx.reg.Handler()
	status := func(host string) int {
		req := httptest.NewRequest("GET", "/knobs", nil)
		req.Host = host
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	hosts[0] = "evil.example"
	assert.Equal(t, 200, status("localhost"), "the caller's slice is copied")
	require.NoError(t, fx.reg.SetConfig(control.Config{AllowedHosts: []string{"gw.internal"}}))
	assert.Equal(t, 403, status("localhost"))
	assert.Equal(t, 200, status("gw.internal"))
	require.NoError(t, fx.reg.SetConfig(control.Config{}))
	assert.Equal(t, 200, status("evil.example"))
}
