package main

import (
	"context"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestShutdownDeliversReplyOfIdleConnection: a connection that has written
// its last reply and waits for the next command when Shutdown comes still
// delivers that reply whole when its client sends another command then
// (one the drain does not run). Its read ended on Shutdown's deadline with
// nothing buffered, and the connection was closed at once, without the
// drain that a connection stopped between two reads gets: the client's
// later command reached a closed socket, the kernel reset it and dropped
// the part of the reply still queued to go out (the client read part of a
// 1 MiB reply, then "connection reset by peer").
func TestShutdownDeliversReplyOfIdleConnection(t *testing.T) {
	const size = 1 << 20
	want := "$" + strconv.Itoa(size) + "\r\n" + strings.Repeat("x", size) + "\r\n"
	srv := memkvServer(t, Config{})
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ln := &idleSignalListener{closeSignalListener: closeSignalListener{Listener: tcp, closed: make(chan struct{})}, idle: make(chan struct{})}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	conn, err := net.Dial("tcp", tcp.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.SetDeadline(time.Now().Add(10*time.Second)))
	// The client does not read yet: most of the reply stays queued in the
	// gateway's socket.
	_, err = conn.Write([]byte("*2\r\n$4\r\nECHO\r\n" + want))
	require.NoError(t, err)
	<-ln.idle // the reply is written, the connection reads again
	shut := make(chan error, 1)
	go func() { shut <- srv.Shutdown(ctx) }()
	<-ln.closed
	// Shutdown closes the listener and sets the read deadlines under mu,
	// so taking it once is the barrier.
	srv.mu.Lock()
	//lint:ignore SA2001 an empty critical section is the barrier
	srv.mu.Unlock()
	_, err = conn.Write([]byte("PING\r\n"))
	require.NoError(t, err)
	_ = conn.(*net.TCPConn).CloseWrite() // fails if the gateway reset the connection already
	got, err := io.ReadAll(conn)
	require.NoError(t, err, "the reply, then the end of the stream (read %d of %d bytes)", len(got), len(want))
	// A read that had started when Shutdown set the deadline may still
	// bring the PING, which then runs: its reply follows.
	require.Contains(t, []int{len(want), len(want) + len("+PONG\r\n")}, len(got))
	require.True(t, strings.HasPrefix(string(got), want), "the reply as sent")
	require.NoError(t, <-shut)
	require.NoError(t, <-served)
}

// idleSignalListener closes idle once a connection it accepted reads after
// it has written (it answered, and waits for more).
type idleSignalListener struct {
	closeSignalListener
	once sync.Once
	idle chan struct{}
}

func (l *idleSignalListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &idleSignalConn{TCPConn: c.(*net.TCPConn), l: l}, nil
}

func (l *idleSignalListener) Close() error { return l.closeSignalListener.Close() }

type idleSignalConn struct {
	*net.TCPConn
	l     *idleSignalListener
	wrote atomic.Bool
}

func (c *idleSignalConn) Write(p []byte) (int, error) {
	n, err := c.TCPConn.Write(p)
	c.wrote.Store(true)
	return n, err
}

func (c *idleSignalConn) Read(p []byte) (int, error) {
	if c.wrote.Load() {
		c.l.once.Do(func() { close(c.l.idle) })
	}
	return c.TCPConn.Read(p)
}
