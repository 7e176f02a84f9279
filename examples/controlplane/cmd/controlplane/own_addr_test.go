package main

import (
	"net"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/internal/loophost/loophosttest"
)

// TestRunAnswersItsOwnLoopbackAddress: -listen takes any loopback address
// (127.0.0.2, say, beside another plane on 127.0.0.1's port), but the default
// allowed hosts were the names localhost, 127.0.0.1 and ::1 only, so the
// plane refused with 403 its own URL (http://127.0.0.2:7070/), the dashboard's
// and the routes' that clients follow. It answers its own IP too, as the
// cluster's plane does; another name is still refused.
func TestRunAnswersItsOwnLoopbackAddress(t *testing.T) {
	addr := startRunOnLoopback(t, "127.0.0.2:0")
	loophosttest.Check(t, "http://"+addr, []loophosttest.Case{ // host "" keeps the listener's address
		{Path: "/", Host: "", Want: http.StatusOK},
		{Path: "/api/state", Host: "", Want: http.StatusOK},
		{Path: "/api/routes", Host: "", Want: http.StatusOK},
		{Path: "/api/state", Host: "127.0.0.2", Want: http.StatusOK},
		{Path: "/api/state", Host: "localhost:7070", Want: http.StatusOK},
		{Path: "/api/state", Host: "rebind.example", Want: http.StatusForbidden},
		// Another loopback IP than its own and the listed ones is not it.
		{Path: "/api/state", Host: "127.0.0.3", Want: http.StatusForbidden},
	})
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
	loophosttest.Check(t, "http://"+addr, []loophosttest.Case{
		{Path: "/api/state", Host: "[::ffff:127.0.0.2]:" + port, Want: http.StatusOK},
		{Path: "/api/state", Host: "[::ffff:7f00:2]:" + port, Want: http.StatusOK},
		{Path: "/api/state", Host: "[::ffff:127.0.0.3]:" + port, Want: http.StatusForbidden},
	})
}

// startRunOnLoopback runs the command with -listen listen, a form of the
// loopback address 127.0.0.2, and one region until the test ends, and
// returns the address it listens on. The test is skipped where 127.0.0.2
// is not local.
func startRunOnLoopback(t *testing.T, listen string) string {
	t.Helper()
	loophosttest.SkipUnlessLocal(t, "127.0.0.2")
	return startRun(t, []string{"-listen", listen, "-region", "eu"})
}
