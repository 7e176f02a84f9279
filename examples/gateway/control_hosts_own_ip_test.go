package main

import (
	"io"
	"net"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestControlHostsOwnLoopbackIP: http_addr takes any loopback address
// (127.0.0.2, say, beside another gateway on 127.0.0.1's port), but the
// default control_hosts were the names localhost, 127.0.0.1 and ::1 only, so
// the gateway refused with 403 its own URL (http://127.0.0.2:6381/metrics),
// the control plane's polls of it included. It answers its own IP too, as
// the control plane command and the cluster's plane do; another name, or
// another loopback IP, is still refused.
func TestControlHostsOwnLoopbackIP(t *testing.T) {
	probe, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("127.0.0.2 is not a local address here: %v", err)
	}
	_ = probe.Close()
	in := startGateway(t, Config{HTTPAddr: "127.0.0.2:0"})
	addr := in.httpLn.Addr().String()
	for _, tc := range []struct {
		path, host string // host "" keeps the listener's address
		want       int
	}{
		{"/control/", "", http.StatusOK},
		{"/metrics", "", http.StatusOK},
		{"/control/", "127.0.0.2", http.StatusOK},
		{"/control/", "localhost:6381", http.StatusOK},
		{"/control/", "rebind.example", http.StatusForbidden},
		{"/metrics", "127.0.0.3", http.StatusForbidden},
	} {
		req, err := http.NewRequest(http.MethodGet, "http://"+addr+tc.path, nil)
		require.NoError(t, err)
		if tc.host != "" {
			req.Host = tc.host
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		assert.Equal(t, tc.want, resp.StatusCode, "GET %s Host %q: %.200s", tc.path, tc.host, body)
	}
}
