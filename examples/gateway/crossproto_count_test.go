package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCrossProtocolCountedOnlyWhenItEndsTheConnection: a POST or "Host:"
// line counts in protocol_errors (and logs a possible attack) only when it is
// what ends the connection. Counted as soon as the read held it, before the
// commands ahead of it ran, it was counted for a connection a QUIT before it
// had already ended (Redis never reads past a QUIT), and twice for one whose
// command before it was refused past the unauthenticated limits (a RESET
// logged it out), which that refusal counts already.
func TestCrossProtocolCountedOnlyWhenItEndsTheConnection(t *testing.T) {
	gw := startGateway(t, Config{HTTPAddr: "-", Tenants: []TenantConfig{{Name: "default", Password: "pw"}}})
	mget11 := "*11\r\n$4\r\nMGET\r\n" + strings.Repeat("$1\r\nk\r\n", 10)
	for _, tc := range []struct {
		name, second, want string
		count              int64
	}{
		{"QUIT before it", "PING\r\nQUIT\r\nPOST / HTTP/1.1\r\n", "+OK\r\n+PONG\r\n+OK\r\n", 0},
		{"refused before it", "RESET\r\n" + mget11 + "POST / HTTP/1.1\r\n",
			"+OK\r\n+RESET\r\n-ERR Protocol error: unauthenticated multibulk length\r\n", 1},
		{"POST alone", "PING\r\nPOST / HTTP/1.1\r\n", "+OK\r\n+PONG\r\n", 1},
	} {
		before := gw.srv.protoErrors.Load()
		got := exchangeAfter(t, gw.Addr(), "AUTH pw\r\n", tc.second)
		assert.Equal(t, tc.want, got, tc.name)
		assert.Equal(t, tc.count, gw.srv.protoErrors.Load()-before, "%s: protocol_errors counted", tc.name)
	}
}
