package main

import (
	"net/http"
	"testing"
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
	checkHosts(t, "http://127.0.0.2:"+port, []hostCase{
		{"/control/", "[::ffff:127.0.0.2]:" + port, http.StatusOK},
		{"/metrics", "[::ffff:127.0.0.2]:" + port, http.StatusOK},
		{"/control/", "[::ffff:7f00:2]:" + port, http.StatusOK},
		{"/control/", "[::ffff:127.0.0.1]", http.StatusOK},
		{"/metrics", "[::ffff:127.0.0.3]:" + port, http.StatusForbidden},
		{"/control/", "rebind.example", http.StatusForbidden},
	})
}
