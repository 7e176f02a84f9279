package main

import (
	"io"
	"net"
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestControlHostsIPv4MappedForm: http_addr may be given as the IPv4-mapped
// form of a loopback address ([::ffff:127.0.0.2]:6381), and the gateway's
// URL written in that form, or in the one a browser writes it in
// ([::ffff:7f00:2]), is its own address. The default control_hosts hold it
// as 127.0.0.2, and the Host was compared with them as a string: /control
// and /metrics answered 403. It is compared as an address; another address
// is still refused.
func TestControlHostsIPv4MappedForm(t *testing.T) {
	probe, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("127.0.0.2 is not a local address here: %v", err)
	}
	_ = probe.Close()
	in := startGateway(t, Config{HTTPAddr: "[::ffff:127.0.0.2]:0"})
	port := strconv.Itoa(in.httpLn.Addr().(*net.TCPAddr).Port)
	for _, tc := range []struct {
		path, host string
		want       int
	}{
		{"/control/", "[::ffff:127.0.0.2]:" + port, http.StatusOK},
		{"/metrics", "[::ffff:127.0.0.2]:" + port, http.StatusOK},
		{"/control/", "[::ffff:7f00:2]:" + port, http.StatusOK},
		{"/control/", "[::ffff:127.0.0.1]", http.StatusOK},
		{"/metrics", "[::ffff:127.0.0.3]:" + port, http.StatusForbidden},
		{"/control/", "rebind.example", http.StatusForbidden},
	} {
		req, err := http.NewRequest(http.MethodGet, "http://127.0.0.2:"+port+tc.path, nil)
		require.NoError(t, err)
		req.Host = tc.host
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		assert.Equal(t, tc.want, resp.StatusCode, "GET %s Host %q: %.200s", tc.path, tc.host, body)
	}
}
