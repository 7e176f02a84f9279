package main

import (
	"context"
	"io"
	"net"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// readAfterWriteListener's connections signal idle when the server reads
// for the first time after a write: the server has answered what it read
// and waits for more.
type readAfterWriteListener struct {
	net.Listener
	idle chan struct{}
}

func (l *readAfterWriteListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &readAfterWriteConn{Conn: c, idle: l.idle}, nil
}

// readAfterWriteConn is used by the connection's goroutine alone.
type readAfterWriteConn struct {
	net.Conn
	idle  chan struct{}
	wrote bool
}

func (c *readAfterWriteConn) Write(b []byte) (int, error) {
	c.wrote = true
	return c.Conn.Write(b)
}

func (c *readAfterWriteConn) Read(b []byte) (int, error) {
	if c.wrote {
		c.wrote = false
		select {
		case c.idle <- struct{}{}:
		default:
		}
	}
	return c.Conn.Read(b)
}

// TestIdleConnectionKeepsNoReply: once a connection's replies are written,
// the session does not keep them while it waits for its next command. The
// replies of its last chunk stayed in its scratch until the next chunk: an
// idle connection whose last command was a GET of a large value (on Redis
// shards, read into memory of its own) or an ECHO kept that value (an
// ECHO's argument, the whole read it came in) for as long as it stayed open.
func TestIdleConnectionKeepsNoReply(t *testing.T) {
	heap := func() int64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.GC() // a second collection empties sync.Pools
		runtime.ReadMemStats(&ms)
		return int64(ms.HeapAlloc)
	}
	srv := memkvServer(t, Config{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	idle := make(chan struct{}, 1)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(&readAfterWriteListener{Listener: ln, idle: idle}) }()
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		require.NoError(t, srv.Shutdown(ctx))
		require.NoError(t, <-served)
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(10*time.Second)))
	waitIdle := func() {
		select {
		case <-idle:
		case <-time.After(10 * time.Second):
			t.Fatal("the server did not read after its reply")
		}
	}
	_, err = c.Write([]byte("PING\r\n"))
	require.NoError(t, err)
	buf := make([]byte, 7)
	_, err = io.ReadFull(c, buf)
	require.NoError(t, err)
	waitIdle()
	before := heap()

	const size = 2 << 20
	echo := "*2\r\n$4\r\nECHO\r\n$" + strconv.Itoa(size) + "\r\n" + strings.Repeat("x", size) + "\r\n"
	want := len("$"+strconv.Itoa(size)+"\r\n") + size + 2
	_, err = c.Write([]byte(echo))
	require.NoError(t, err)
	echo = ""
	n, err := io.Copy(io.Discard, io.LimitReader(c, int64(want)))
	require.NoError(t, err)
	require.EqualValues(t, want, n)
	waitIdle()
	held := heap() - before
	t.Logf("an idle connection holds %d KB more after an ECHO of %d KB", held>>10, size>>10)
	require.Less(t, held, int64(size/4), "the idle connection keeps its last reply")
}
