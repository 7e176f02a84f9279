package main

import (
	"context"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestShutdownDeliversReplyDespiteLaterCommand: a command read before
// Shutdown gets its whole reply even when the client pipelined another
// command behind it, which the drain does not run. The connection was
// closed with that command unread, so the kernel reset it and dropped the
// reply still queued to go out: the client read 128,000 bytes of a 1 MiB
// reply, then "connection reset by peer".
func TestShutdownDeliversReplyDespiteLaterCommand(t *testing.T) {
	echo := commands["ECHO"]
	echoFn := echo.fn
	t.Cleanup(func() { echo.fn = echoFn }) // after the server's shutdown
	srv := memkvServer(t, Config{})
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ln := &closeSignalListener{Listener: tcp, closed: make(chan struct{})}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	shut := make(chan error, 1)
	running, sent := make(chan struct{}), make(chan struct{})
	var once sync.Once
	// The ECHO starts the Shutdown, and runs once the client has sent its
	// next command, which the connection has not read.
	echo.fn = func(c context.Context, s *session, a [][]byte) any {
		once.Do(func() {
			go func() { shut <- srv.Shutdown(ctx) }()
			<-ln.closed
			close(running)
			<-sent
		})
		return echoFn(c, s, a)
	}

	conn, err := net.Dial("tcp", tcp.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.SetDeadline(time.Now().Add(10*time.Second)))
	const size = 1 << 20
	_, err = conn.Write([]byte("*2\r\n$4\r\nECHO\r\n$" + strconv.Itoa(size) + "\r\n" + strings.Repeat("x", size) + "\r\n"))
	require.NoError(t, err)
	<-running // the ECHO is read: the PING comes in a later read
	_, err = conn.Write([]byte("PING\r\n"))
	require.NoError(t, err)
	require.NoError(t, conn.(*net.TCPConn).CloseWrite())
	close(sent)
	require.NoError(t, <-shut)
	require.NoError(t, <-served)

	want := "$" + strconv.Itoa(size) + "\r\n" + strings.Repeat("x", size) + "\r\n"
	got, err := io.ReadAll(conn)
	require.NoError(t, err, "the reply, then the end of the stream (read %d of %d bytes)", len(got), len(want))
	require.Equal(t, len(want), len(got))
	require.Equal(t, want, string(got))
}
