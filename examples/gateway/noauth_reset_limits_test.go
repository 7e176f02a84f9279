package main

import (
	"bufio"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// exchangeAfter writes first (unless empty) on a fresh connection to addr
// and reads its one-line reply, then writes second in one write,
// half-closes the connection and returns all the server wrote.
func exchangeAfter(t *testing.T, addr, first, second string) string {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(conn)
	line := ""
	if first != "" {
		_, err = conn.Write([]byte(first))
		require.NoError(t, err)
		line, err = br.ReadString('\n')
		require.NoError(t, err)
	}
	_, err = conn.Write([]byte(second))
	require.NoError(t, err)
	require.NoError(t, conn.(*net.TCPConn).CloseWrite())
	out, err := io.ReadAll(br)
	require.NoError(t, err)
	return line + string(out)
}

// TestResetInReadRestoresUnauthLimits: a connection already authenticated
// that pipelines RESET (which logs it out when no tenant is open) and then
// a command past the unauthenticated limits in the same write gets Redis's
// protocol error for that command, and the connection ends, as on Redis,
// which reads each command after the one before ran. The reader had parsed
// the whole write while the connection was authenticated: the gateway
// answered NOAUTH and read on. A failed AUTH logs nobody out: the limits
// do not apply after it, on either.
func TestResetInReadRestoresUnauthLimits(t *testing.T) {
	rs := startRedisAs(t, "default", "pw", "--requirepass", "pw")
	gw := startGateway(t, Config{HTTPAddr: "-", Tenants: []TenantConfig{{Name: "default", Password: "pw"}}})
	mget11 := "*11\r\n$4\r\nMGET\r\n" + strings.Repeat("$1\r\nk\r\n", 10)
	echoBig := "*2\r\n$4\r\nECHO\r\n$16385\r\n" + strings.Repeat("x", 16385) + "\r\n"
	for _, second := range []string{
		"RESET\r\n" + mget11 + "PING\r\n",
		"RESET\r\n" + echoBig + "PING\r\n",
		"PING\r\nRESET\r\nPING\r\n" + mget11,
		"RESET\r\nMGET k k k k k k k k k k k\r\n",
		"AUTH nope\r\n" + mget11,
	} {
		want := exchangeAfter(t, rs.addr, "AUTH pw\r\n", second)
		got := exchangeAfter(t, gw.Addr(), "AUTH pw\r\n", second)
		assert.Equal(t, want, got, "%q", cut(second, 80))
	}
}
