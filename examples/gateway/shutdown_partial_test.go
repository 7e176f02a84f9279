package main

import (
	"context"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestShutdownDeliversReplyBeforePartialCommand: a command read before
// Shutdown gets its reply, and then the end of the stream, when the read
// that brought it also brought the start of the next command, whose rest
// the client sends during the Shutdown. The connection's read for that
// rest failed at Shutdown's deadline and the connection was closed with it
// unread, without the drain a connection stopped between two commands
// gets: the kernel reset it, and the client read "connection reset by
// peer" in place of the reply it was owed.
func TestShutdownDeliversReplyBeforePartialCommand(t *testing.T) {
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
	// The ECHO starts the Shutdown, and runs once the client has sent the
	// rest of the command after it, which the connection has not read.
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
	_, err = conn.Write([]byte("*2\r\n$4\r\nECHO\r\n$5\r\nhello\r\n*1\r\n$4\r\nPI"))
	require.NoError(t, err)
	<-running // the ECHO and the start of the PING are read
	_, err = conn.Write([]byte("NG\r\n"))
	require.NoError(t, err)
	require.NoError(t, conn.(*net.TCPConn).CloseWrite())
	close(sent)
	require.NoError(t, <-shut)
	require.NoError(t, <-served)

	got, err := io.ReadAll(conn)
	require.NoError(t, err, "the reply, then the end of the stream (got %q)", got)
	require.Equal(t, "$5\r\nhello\r\n", string(got))
}
