package main

import (
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestSlowReaderClosedAfterWriteTimeout: a plain (not TLS) client that sends
// commands and does not read their replies is closed once a write has waited
// write_timeout, well before idle_timeout (README, limits: "a client that
// does not read its replies is closed after write_timeout rather than
// buffered for"). Only the TLS connection's write deadline was tested.
func TestSlowReaderClosedAfterWriteTimeout(t *testing.T) {
	const wto = 300 * time.Millisecond
	srv := memkvServer(t, Config{Limits: Limits{WriteTimeout: Duration(wto), IdleTimeout: Duration(time.Minute)}})
	ln := serveWriteSizes(t, srv)

	c, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.(*net.TCPConn).SetReadBuffer(4096))
	const value = 1 << 20
	bulk := func(s string) string { return fmt.Sprintf("$%d\r\n%s\r\n", len(s), s) }
	// 64 MiB of replies: more than the sockets' buffers hold.
	pipe := "*3\r\n" + bulk("SET") + bulk("k") + bulk(strings.Repeat("v", value)) + strings.Repeat("GET k\r\n", 64)
	start := time.Now()
	require.NoError(t, c.SetWriteDeadline(start.Add(5*time.Second)))
	_, err = c.Write([]byte(pipe))
	require.NoError(t, err)
	eventuallyWithin(t, 5*time.Second, "the connection is closed after write_timeout", func() bool { return srv.active.Load() == 0 })
	require.Less(t, time.Since(start), 10*wto+2*time.Second, "closed by write_timeout, not idle_timeout")
}

// TestIdleConnectionClosedAfterIdleTimeout: a plain connection that sends no
// request for idle_timeout is closed (README: after between 7/8 of
// idle_timeout and all of it). Only the TLS connection's was tested.
func TestIdleConnectionClosedAfterIdleTimeout(t *testing.T) {
	const idle = 400 * time.Millisecond
	srv := memkvServer(t, Config{Limits: Limits{IdleTimeout: Duration(idle)}})
	ln := serveWriteSizes(t, srv)

	c, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(10*time.Second)))
	_, err = c.Write([]byte("PING\r\n"))
	require.NoError(t, err)
	buf := make([]byte, 7)
	_, err = io.ReadFull(c, buf)
	require.NoError(t, err)
	require.Equal(t, "+PONG\r\n", string(buf))
	answered := time.Now()
	_, err = c.Read(buf)
	require.ErrorIs(t, err, io.EOF, "the gateway ends the idle connection")
	waited := time.Since(answered)
	require.GreaterOrEqual(t, waited, idle*7/8-idle/8, "not before about 7/8 of idle_timeout")
	require.Less(t, waited, idle+2*time.Second, "within idle_timeout (and the test's slack)")
}
