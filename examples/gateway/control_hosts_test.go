package main

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestControlHosts: on a loopback http_addr /control answers only requests
// whose Host is a loopback name unless control_hosts says otherwise, so a
// page of a domain an attacker resolves to 127.0.0.1 (DNS rebinding) cannot
// read or change knobs from an operator's browser.
func TestControlHosts(t *testing.T) {
	for _, tc := range []struct {
		name  string
		hosts []string
		host  string // the request's Host; "" keeps the listener's address
		want  int
	}{
		{"default, loopback address", nil, "", http.StatusOK},
		{"default, localhost", nil, "localhost:6381", http.StatusOK},
		{"default, another name", nil, "rebind.example:6381", http.StatusForbidden},
		{"listed name", []string{"gw.internal"}, "gw.internal", http.StatusOK},
		{"list replaces the default", []string{"gw.internal"}, "", http.StatusForbidden},
		{"any host", []string{"*"}, "rebind.example", http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := startGateway(t, Config{ControlHosts: tc.hosts})
			req, err := http.NewRequest(http.MethodGet, "http://"+in.httpLn.Addr().String()+"/control/", nil)
			require.NoError(t, err)
			if tc.host != "" {
				req.Host = tc.host
			}
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
			require.Equal(t, tc.want, resp.StatusCode)
		})
	}
}

func TestControlHostsDefaults(t *testing.T) {
	loop := []string{"localhost", "127.0.0.1", "::1"}
	for _, tc := range []struct {
		ip    string // "": no HTTP listener
		hosts []string
		want  []string
	}{
		{"127.0.0.1", nil, loop},
		{"::1", nil, loop},
		{"127.0.0.2", nil, append(slices.Clone(loop), "127.0.0.2")},
		{"192.0.2.1", nil, nil},
		{"", nil, nil},
		{"127.0.0.1", []string{"*"}, nil},
		{"127.0.0.2", []string{"*"}, nil},
		{"192.0.2.1", []string{"gw"}, []string{"gw"}},
		{"127.0.0.2", []string{"gw"}, []string{"gw"}},
	} {
		got := Config{ControlHosts: tc.hosts}.controlHosts(net.ParseIP(tc.ip))
		require.Equal(t, tc.want, got, "ip %q, %v", tc.ip, tc.hosts)
	}
}

// TestControlHostsFollowTheListener: whether http_addr is on loopback is
// judged by the address the listener bound, not by its text: "LOCALHOST"
// binds 127.0.0.1 as "localhost" does, and its /control must refuse other
// Host names too (it answered any).
func TestControlHostsFollowTheListener(t *testing.T) {
	for _, addr := range []string{"localhost:0", "LOCALHOST:0", "127.0.0.1:0"} {
		t.Run(addr, func(t *testing.T) {
			in := startGateway(t, Config{HTTPAddr: addr})
			req, err := http.NewRequest(http.MethodGet, "http://"+in.httpLn.Addr().String()+"/control/", nil)
			require.NoError(t, err)
			req.Host = "rebind.example"
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
			require.Equal(t, http.StatusForbidden, resp.StatusCode)
		})
	}
}

func TestControlHostsRefused(t *testing.T) {
	cfg := Config{Addr: "127.0.0.1:0", HTTPAddr: "127.0.0.1:0", ControlHosts: []string{"gw:80"}}
	_, err := start(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	require.ErrorContains(t, err, "control_hosts")
}
