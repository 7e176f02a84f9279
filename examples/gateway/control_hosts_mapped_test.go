package main

import (
	"net/http"
	"testing"

	"github.com/tierkit/tierkit/examples/internal/loophost/loophosttest"
)

// TestControlHostsIPv4MappedForm: http_addr may be given as the IPv4-mapped
// form of a loopback address ([::ffff:127.0.0.2]:6381), and the gateway's
// URL written in that form, or in the one a browser writes it in
// ([::ffff:7f00:2]), is its own address. The default control_hosts hold it
// as 127.0.0.2, and the Host was compared with them as a string: /control
// and /metrics answered 403. It is compared as an address; another address
// is still refused.
func TestControlHostsIPv4MappedForm(t *testing.T) {
	port := startGatewayOnLoopback(t, "[::ffff:127.0.0.2]:0")
	loophosttest.Check(t, "http://127.0.0.2:"+port, []loophosttest.Case{
		{Path: "/control/", Host: "[::ffff:127.0.0.2]:" + port, Want: http.StatusOK},
		{Path: "/metrics", Host: "[::ffff:127.0.0.2]:" + port, Want: http.StatusOK},
		{Path: "/control/", Host: "[::ffff:7f00:2]:" + port, Want: http.StatusOK},
		{Path: "/control/", Host: "[::ffff:127.0.0.1]", Want: http.StatusOK},
		{Path: "/metrics", Host: "[::ffff:127.0.0.3]:" + port, Want: http.StatusForbidden},
		{Path: "/control/", Host: "rebind.example", Want: http.StatusForbidden},
	})
}
