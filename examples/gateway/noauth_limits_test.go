package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// exchangeAt writes data on a fresh connection to addr, half-closes it and
// returns all the server wrote before it closed the connection.
func exchangeAt(t *testing.T, addr, data string) string {
	t.Helper()
	return exchangeAfter(t, addr, "", data)
}

// TestUnauthenticatedRequestLimitsAsRedis: a connection that must still
// authenticate may announce at most 10 arguments and bulks of at most
// 16 KiB, as on Redis with a password ("Protocol error: unauthenticated
// multibulk length", "... bulk length", and the connection is closed). The
// gateway took commands of max_args arguments and max_request_bytes from
// anyone who could connect, and buffered them before answering NOAUTH. The
// limits apply from the state the commands before find: an AUTH pipelined
// before a larger command lifts them for it, a RESET puts them back.
func TestUnauthenticatedRequestLimitsAsRedis(t *testing.T) {
	rs := startRedisAs(t, "default", "pw", "--requirepass", "pw")
	gw := startGateway(t, Config{HTTPAddr: "-", Tenants: []TenantConfig{{Name: "default", Password: "pw"}}})
	bulk := func(n int) string { return "$" + itoa(n) + "\r\n" + strings.Repeat("x", n) + "\r\n" }
	mget11 := "*11\r\n$4\r\nMGET\r\n" + strings.Repeat("$1\r\nk\r\n", 10)
	cases := []string{
		"*11\r\n",
		mget11,
		"*10\r\n$4\r\nMGET\r\n" + strings.Repeat("$1\r\nk\r\n", 9),
		"*1\r\n$16385\r\n",
		"*2\r\n$4\r\nECHO\r\n$16385\r\n", // Redis resets a connection closed with bytes unread: none here
		"*2\r\n$4\r\nECHO\r\n" + bulk(16384),
		"PING\r\n" + mget11,
		"PING\r\n*2\r\n$4\r\nECHO\r\n$20000\r\n",
		"AUTH pw\r\n" + mget11 + "*2\r\n$4\r\nECHO\r\n" + bulk(20000),
		"HELLO 3 AUTH default pw\r\n" + mget11,
		"AUTH pw\r\nRESET\r\n" + mget11,
		"AUTH pw\r\nRESET\r\nAUTH pw\r\n" + mget11,
	}
	for _, in := range cases {
		want, got := exchangeAt(t, rs.addr, in), exchangeAt(t, gw.Addr(), in)
		if strings.HasPrefix(in, "HELLO") { // the servers' own maps differ (version, id)
			_, want, _ = strings.Cut(want, "modules\r\n*0\r\n")
			_, got, _ = strings.Cut(got, "modules\r\n*0\r\n")
		}
		assert.True(t, want == got, "%q:\nredis   %q\ngateway %q", cut(in, 80), cut(want, 300), cut(got, 300))
	}
}

// cut is s, cut to n bytes.
func cut(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}
