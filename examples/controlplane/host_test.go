package controlplane_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/controlplane"
)

// Config.AllowedHosts guards a plane on loopback against DNS rebinding: a
// request whose Host is not listed is refused with 403 and a JSON error before
// routing, so a page of a domain an attacker resolves to 127.0.0.1 can neither
// read the API nor drain a gateway from an operator's browser. Without the
// list any Host is answered.
func TestHandlerAllowedHosts(t *testing.T) {
	loopback := []string{"localhost", "127.0.0.1", "::1"}
	tests := []struct {
		name       string
		allowed    []string
		method     string
		path       string
		host       string
		wantStatus int
	}{
		{"no list, any host", nil, "GET", "/api/state", "rebind.example", 200},
		{"name", loopback, "GET", "/api/state", "localhost", 200},
		{"name with port", loopback, "GET", "/api/state", "localhost:7070", 200},
		{"case", loopback, "GET", "/api/state", "LocalHost:7070", 200},
		{"ipv4 with port", loopback, "GET", "/api/routes", "127.0.0.1:7070", 200},
		{"ipv6 with port", loopback, "GET", "/api/state", "[::1]:7070", 200},
		{"ipv6 without port", loopback, "GET", "/api/state", "[::1]", 200},
		{"dashboard", loopback, "GET", "/", "127.0.0.1", 200},
		{"listed name", []string{"plane.internal"}, "GET", "/api/state", "plane.internal:80", 200},
		{"allowed, drain", loopback, "POST", "/api/drain/eu-1", "localhost:7070", 200},
		{"rebound name", loopback, "GET", "/api/state", "rebind.example:7070", 403},
		{"rebound name, routes", loopback, "GET", "/api/routes", "rebind.example", 403},
		{"rebound name, dashboard", loopback, "GET", "/", "rebind.example", 403},
		{"rebound name drains", loopback, "POST", "/api/drain/eu-1", "rebind.example:7070", 403},
		{"rebound name, rollout", loopback, "POST", "/api/rollout", "rebind.example", 403},
		{"before routing", loopback, "GET", "/api/nothing", "rebind.example", 403},
		{"suffix", loopback, "GET", "/api/state", "localhost.rebind.example", 403},
		{"prefix", loopback, "GET", "/api/state", "rebind.example.localhost", 403},
		{"other loopback address", loopback, "GET", "/api/state", "127.0.0.2", 403},
		{"no host", loopback, "GET", "/api/state", "", 403},
		{"list replaces loopback", []string{"plane.internal"}, "GET", "/api/state", "localhost", 403},
		{"allowed, unknown path", loopback, "GET", "/api/nothing", "localhost", 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := hostPlane(t, tt.allowed)
			req := postJSON(tt.path, `{"Rules":[],"Kill":true}`)
			req.Method = tt.method
			req.Host = tt.host
			rec := httptest.NewRecorder()
			p.Handler().ServeHTTP(rec, req)
			assert.Equal(t, tt.wantStatus, rec.Code, rec.Body.String())
			if tt.wantStatus == http.StatusForbidden {
				var body map[string]string
				require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body), rec.Body.String())
				assert.Contains(t, body["error"], "controlplane: Host ")
				assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
				assert.Empty(t, p.State().Draining, "a refused request drained a gateway")
				_, v := p.Routes()
				assert.Equal(t, uint64(1), v, "a refused request published a version")
			}
		})
	}
}

// An AllowedHosts entry must be a bare name or IP address: with a port,
// brackets or a wildcard it would never match a Host.
func TestConfigAllowedHostsValidate(t *testing.T) {
	tests := []struct {
		give    []string
		wantErr bool
	}{
		{nil, false},
		{[]string{"localhost", "127.0.0.1", "::1", "plane.internal"}, false},
		{[]string{""}, true},
		{[]string{"localhost:7070"}, true},
		{[]string{"[::1]"}, true},
		{[]string{"local host"}, true},
		{[]string{"*"}, true},
		{[]string{"*.internal"}, true},
	}
	for _, tt := range tests {
		_, err := controlplane.New(controlplane.Config{
			Regions: []controlplane.Region{{Name: "eu"}}, AllowedHosts: tt.give})
		if tt.wantErr {
			assert.ErrorIs(t, err, controlplane.ErrInvalidConfig, "%q", tt.give)
		} else {
			assert.NoError(t, err, "%q", tt.give)
		}
	}
}

// hostPlane is a one-region plane with one gateway, eu-1, whose handler
// answers the allowed hosts.
func hostPlane(t *testing.T, allowed []string) *controlplane.Plane {
	t.Helper()
	p, err := controlplane.New(controlplane.Config{
		Regions:      []controlplane.Region{{Name: "eu"}},
		Gateways:     []controlplane.Gateway{gw("eu", 1, 1)},
		Poller:       newFakeTier(),
		AllowedHosts: allowed,
	})
	require.NoError(t, err)
	return p
}
