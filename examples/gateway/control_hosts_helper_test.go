package main

import (
	"net"
	"strconv"
	"testing"

	"github.com/tierkit/tierkit/examples/internal/loophost/loophosttest"
)

// startGatewayOnLoopback starts a gateway whose HTTP listener is on
// httpAddr, a form of the loopback address 127.0.0.2, and returns the
// listener's port. The test is skipped where 127.0.0.2 is not local.
func startGatewayOnLoopback(t *testing.T, httpAddr string) string {
	t.Helper()
	loophosttest.SkipUnlessLocal(t, "127.0.0.2")
	in := startGateway(t, Config{HTTPAddr: httpAddr})
	return strconv.Itoa(in.httpLn.Addr().(*net.TCPAddr).Port)
}
