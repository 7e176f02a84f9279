package main

import (
	"net/http"
	"testing"
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
	checkHosts(t, "http://127.0.0.2:"+port, []hostCase{ // host "" keeps the listener's address
		{"/control/", "", http.StatusOK},
		{"/metrics", "", http.StatusOK},
		{"/control/", "127.0.0.2", http.StatusOK},
		{"/control/", "localhost:6381", http.StatusOK},
		{"/control/", "rebind.example", http.StatusForbidden},
		{"/metrics", "127.0.0.3", http.StatusForbidden},
	})
}
