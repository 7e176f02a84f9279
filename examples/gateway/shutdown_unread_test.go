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
	const size = 1 << 20
	want := "$" + strconv.Itoa(size) + "\r\n" + strings.Repeat("x", size) + "\r\n"
	// The ECHO is read whole: the PING comes in a later read.
	got, err := shutdownDuringEcho(t, "*2\r\n$4\r\nECHO\r\n"+want, "PING\r\n")
	require.NoError(t, err, "the reply, then the end of the stream (read %d of %d bytes)", len(got), len(want))
	require.Equal(t, len(want), len(got))
	require.Equal(t, want, string(got))
}

// shutdownDuringEcho serves a memkv gateway, sends first (an ECHO and maybe
// the start of another command), and once the ECHO runs starts a Shutdown;
// when Shutdown has closed the listener and set the read deadlines, it sends
// rest and closes its side. It returns what the client then read to the end
// of the stream, and the read's error.
func shutdownDuringEcho(t *testing.T, first, rest string) ([]byte, error) {
	t.Helper()
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
	// The ECHO starts the Shutdown, and runs once the client has sent rest,
	// which the connection has not read.
	echo.fn = func(c context.Context, s *session, a [][]byte) any {
		once.Do(func() {
			go func() { shut <- srv.Shutdown(ctx) }()
			<-ln.closed
			// Shutdown closes the listener and sets the read deadlines
			// under mu, so taking it once is the barrier.
			srv.mu.Lock()
			//lint:ignore SA2001 an empty critical section is the barrier
			srv.mu.Unlock()
			close(running)
			<-sent
		})
		return echoFn(c, s, a)
	}

	conn, err := net.Dial("tcp", tcp.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.SetDeadline(time.Now().Add(10*time.Second)))
	_, err = conn.Write([]byte(first))
	require.NoError(t, err)
	<-running
	_, err = conn.Write([]byte(rest))
	require.NoError(t, err)
	require.NoError(t, conn.(*net.TCPConn).CloseWrite())
	close(sent)
	require.NoError(t, <-shut)
	require.NoError(t, <-served)
	return io.ReadAll(conn)
}
