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

// hostCase is a GET of path with the Host header host ("" keeps the URL's)
// and the status the gateway answers it with.
type hostCase struct {
	path, host string
	want       int
}

// startGatewayOnLoopback starts a gateway whose HTTP listener is on
// httpAddr, a form of the loopback address 127.0.0.2, and returns the
// listener's port. The test is skipped where 127.0.0.2 is not local.
func startGatewayOnLoopback(t *testing.T, httpAddr string) string {
	t.Helper()
	probe, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("127.0.0.2 is not a local address here: %v", err)
	}
	_ = probe.Close()
	in := startGateway(t, Config{HTTPAddr: httpAddr})
	return strconv.Itoa(in.httpLn.Addr().(*net.TCPAddr).Port)
}

// checkHosts GETs each case's path from base (http://host:port) with its
// Host and checks the status the gateway answers.
func checkHosts(t *testing.T, base string, cases []hostCase) {
	t.Helper()
	for _, tc := range cases {
		req, err := http.NewRequest(http.MethodGet, base+tc.path, nil)
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
