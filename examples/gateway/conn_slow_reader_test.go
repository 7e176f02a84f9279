package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestSlowReaderGetsLargeReplyWhole: a client that reads its reply steadily,
// if slowly, gets it whole, however long the whole takes: write_timeout cuts
// a client that does not read (README, limits), not one that does. A reply
// of many values was already flushed 256 KiB at a time, each write with its
// own deadline; one large value went out in one write, which had to end
// within write_timeout: a GET of a 3 MiB value read at 3 MiB/s was cut
// after write_timeout, the client left with part of the bulk and the end of the
// stream, where Redis sends it whole.
func TestSlowReaderGetsLargeReplyWhole(t *testing.T) {
	// 500 ms, not the 300 of TestSlowReaderClosedAfterWriteTimeout: this
	// test's reader must not stall that long itself, under -race on a busy
	// machine.
	const wto = 500 * time.Millisecond
	srv := memkvServer(t, Config{Limits: Limits{WriteTimeout: Duration(wto), IdleTimeout: Duration(time.Minute)}})
	ln := serveSmallSendBuffers(t, srv)

	c, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.(*net.TCPConn).SetReadBuffer(smallSocketBuffer))
	require.NoError(t, c.SetDeadline(time.Now().Add(20*time.Second)))
	br := bufio.NewReaderSize(c, smallSocketBuffer)
	value := strings.Repeat("v", 3<<20)
	_, err = fmt.Fprintf(c, "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$%d\r\n%s\r\n", len(value), value)
	require.NoError(t, err)
	line, err := br.ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "+OK\r\n", line)

	_, err = io.WriteString(c, "GET k\r\nPING\r\n")
	require.NoError(t, err)
	// 32 KiB every 10 ms: about a second for the reply, twice
	// write_timeout, each 256 KiB of it within a tenth of a second.
	want := fmt.Sprintf("$%d\r\n%s\r\n+PONG\r\n", len(value), value)
	got := make([]byte, 0, len(want))
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	buf := make([]byte, smallSocketBuffer)
	for len(got) < len(want) {
		<-tick.C
		n, err := io.ReadFull(br, buf[:min(len(buf), len(want)-len(got))])
		got = append(got, buf[:n]...)
		require.NoError(t, err, "the reply was cut after %d of its %d bytes", len(got), len(want))
	}
	require.Equal(t, want, string(got))
}

// smallSocketBuffer is the socket buffer of both ends in
// TestSlowReaderGetsLargeReplyWhole, so that the kernel does not take in
// most of a reply at once.
const smallSocketBuffer = 32 << 10

// serveSmallSendBuffers serves srv on a loopback listener whose connections
// have a send buffer of smallSocketBuffer, and shuts it down at cleanup.
func serveSmallSendBuffers(t *testing.T, srv *Server) net.Listener {
	t.Helper()
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ln := smallSendListener{inner}
	serveOn(t, srv, ln)
	return ln
}

type smallSendListener struct{ net.Listener }

func (l smallSendListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(smallSocketBuffer)
	}
	return c, err
}
