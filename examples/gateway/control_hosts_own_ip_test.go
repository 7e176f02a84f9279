package main

import (
	"net/http"
	"testing"

	"github.com/tierkit/tierkit/examples/internal/loophost/loophosttest"
)

// TestControlHostsOwnLoopbackIP: http_addr takes any loopback address
// (127.0.0.2, say, beside another gateway on 127.0.0.1's port), but the
// default control_hosts were the names localhost, 127.0.0.1 and ::1 only, so
// the gateway refused with 403 its own URL (http://127.0.0.2:6381/metrics),
// the control plane's polls of it included. It answers its own IP too, as
// the control plane command and the cluster's plane do; another name, or
// another loopback IP, is still refused.
func TestControlHostsOwnLoopbackIP(t *testing.T) {
	port := startGatewayOnLoopback(t, "127.0.0.2:0")
	loophosttest.Check(t, "http://127.0.0.2:"+port, []loophosttest.Case{ // host "" keeps the listener's address
		{Path: "/control/", Host: "", Want: http.StatusOK},
		{Path: "/metrics", Host: "", Want: http.StatusOK},
		{Path: "/control/", Host: "127.0.0.2", Want: http.StatusOK},
		{Path: "/control/", Host: "localhost:6381", Want: http.StatusOK},
		{Path: "/control/", Host: "rebind.example", Want: http.StatusForbidden},
		{Path: "/metrics", Host: "127.0.0.3", Want: http.StatusForbidden},
	})
}
