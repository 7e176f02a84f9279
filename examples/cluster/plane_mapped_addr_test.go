package main

import (
	"net"
	"net/http"
	"strconv"
	"testing"
)

// TestPlaneAnswersItsIPv4MappedAddress: -http may be given as the
// IPv4-mapped form of a loopback address ([::ffff:127.0.0.2]:7070); the
// plane listens on 127.0.0.2, which it answers as its own address, but
// compared the Host as a string: its URL written as given, or as a browser
// writes it ([::ffff:7f00:2]), answered 403. It is compared as an address.
func TestPlaneAnswersItsIPv4MappedAddress(t *testing.T) {
	c := startPlaneOnLoopback(t, "[::ffff:127.0.0.2]:0")
	port := strconv.Itoa(c.ln.Addr().(*net.TCPAddr).Port)
	requirePlaneStatus(t, c, "/api/state", net.JoinHostPort("::ffff:127.0.0.2", port), http.StatusOK)
	requirePlaneStatus(t, c, "/api/state", net.JoinHostPort("::ffff:7f00:2", port), http.StatusOK)
	requirePlaneStatus(t, c, "/api/state", net.JoinHostPort("::ffff:127.0.0.3", port), http.StatusForbidden)
}
