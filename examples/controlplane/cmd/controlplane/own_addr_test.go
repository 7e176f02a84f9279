package main

import (
	"io"
	"net"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunAnswersItsOwnLoopbackAddress: -listen takes any loopback address
// (127.0.0.2, say, beside another plane on 127.0.0.1's port), but the default
// allowed hosts were the names localhost, 127.0.0.1 and ::1 only, so the
// plane refused with 403 its own URL (http://127.0.0.2:7070/), the dashboard's
// and the routes' that clients follow. It answers its own IP too, as the
// cluster's plane does; another name is still refused.
func TestRunAnswersItsOwnLoopbackAddress(t *testing.T) {
	addr := startRunOnLoopback(t, "127.0.0.2:0")
	checkHosts(t, "http://"+addr, []hostCase{ // host "" keeps the listener's address
		{"/", "", http.StatusOK},
		{"/api/state", "", http.StatusOK},
		{"/api/routes", "", http.StatusOK},
		{"/api/state", "127.0.0.2", http.StatusOK},
		{"/api/state", "localhost:7070", http.StatusOK},
		{"/api/state", "rebind.example", http.StatusForbidden},
		// Another loopback IP than its own and the listed ones is not it.
		{"/api/state", "127.0.0.3", http.StatusForbidden},
	})
}

// The listener's own IP joins the loopback names on a loopback listener with
// no list (once); a list, "*" included, still replaces them, and a listener
// beyond loopback still answers any Host.
func TestAllowedHostsOwnIP(t *testing.T) {
	for _, tc := range []struct {
		ip    string
		hosts []string
		want  []string
	}{
		{"127.0.0.2", nil, []string{"localhost", "127.0.0.1", "::1", "127.0.0.2"}},
		{"127.0.0.1", nil, []string{"localhost", "127.0.0.1", "::1"}},
		{"::1", nil, []string{"localhost", "127.0.0.1", "::1"}},
		{"127.0.0.2", []string{"plane.internal"}, []string{"plane.internal"}},
		{"127.0.0.2", []string{"*"}, nil},
		{"192.0.2.1", nil, nil},
	} {
		got := allowedHosts(net.ParseIP(tc.ip), tc.hosts)
		assert.Equal(t, tc.want, got, "%s %v", tc.ip, tc.hosts)
	}
}

// TestRunAnswersItsIPv4MappedAddress: -listen may be given as the IPv4-mapped
// form of a loopback address ([::ffff:127.0.0.2]:7070); the plane listens on
// 127.0.0.2, which its default allowed hosts hold, and compared the Host as
// a string: its URL written as given, or as a browser writes it
// ([::ffff:7f00:2]), answered 403. It is compared as an address.
func TestRunAnswersItsIPv4MappedAddress(t *testing.T) {
	addr := startRunOnLoopback(t, "[::ffff:127.0.0.2]:0")
	_, port, err := net.SplitHostPort(addr)
	require.NoError(t, err)
	checkHosts(t, "http://"+addr, []hostCase{
		{"/api/state", "[::ffff:127.0.0.2]:" + port, http.StatusOK},
		{"/api/state", "[::ffff:7f00:2]:" + port, http.StatusOK},
		{"/api/state", "[::ffff:127.0.0.3]:" + port, http.StatusForbidden},
	})
}

// hostCase is a GET of path with the Host header host ("" keeps the URL's)
// and the status the plane answers it with.
type hostCase struct {
	path, host string
	want       int
}

// startRunOnLoopback runs the command with -listen listen, a form of the
// loopback address 127.0.0.2, and one region until the test ends, and
// returns the address it listens on. The test is skipped where 127.0.0.2
// is not local.
func startRunOnLoopback(t *testing.T, listen string) string {
	t.Helper()
	probe, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("127.0.0.2 is not a local address here: %v", err)
	}
	_ = probe.Close()
	return startRun(t, []string{"-listen", listen, "-region", "eu"})
}

// checkHosts GETs each case's path from base (http://host:port) with its
// Host and checks the status the plane answers.
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
		assert.Equal(t, tc.want, resp.StatusCode, "GET %s Host %q: %s", tc.path, tc.host, body)
	}
}
