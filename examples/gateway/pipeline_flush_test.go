package main

import (
	"context"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// writeSizeListener records the size of the largest Write on the
// connections it accepts.
type writeSizeListener struct {
	net.Listener
	mu      sync.Mutex
	largest int
}

func (l *writeSizeListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &writeSizeConn{Conn: c, l: l}, nil
}

// serveWriteSizes serves srv on a loopback listener that records the
// largest write, shut down at the test's end.
func serveWriteSizes(t *testing.T, srv *Server) *writeSizeListener {
	t.Helper()
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ln := &writeSizeListener{Listener: inner}
	serveOn(t, srv, ln)
	return ln
}

// serveOn serves srv on ln and, at the test's end, shuts it down and checks
// that Serve returned without an error.
func serveOn(t *testing.T, srv *Server, ln net.Listener) {
	t.Helper()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		require.NoError(t, srv.Shutdown(ctx))
		require.NoError(t, <-served)
	})
}

type writeSizeConn struct {
	net.Conn
	l *writeSizeListener
}

func (c *writeSizeConn) Write(p []byte) (int, error) {
	c.l.mu.Lock()
	c.l.largest = max(c.l.largest, len(p))
	c.l.mu.Unlock()
	return c.Conn.Write(p)
}

// TestPipelineChunksAreFlushed: the replies of a pipeline longer than
// max_pipeline go out chunk by chunk. They were all held in the writer until
// the last chunk had run: a read of many commands (a 4 MiB read holds
// hundreds of thousands of GETs, each of which may answer a large value)
// buffered all of their replies, whatever max_pipeline, and a client that
// does not read got nothing, so write_timeout never cut it short meanwhile.
func TestPipelineChunksAreFlushed(t *testing.T) {
	srv := memkvServer(t, Config{Limits: Limits{MaxPipeline: 2}})
	ln := serveWriteSizes(t, srv)

	const value, gets = 1000, 8
	pipe := "SET k " + strings.Repeat("v", value) + "\r\n" + strings.Repeat("GET k\r\n", gets) + "QUIT\r\n"
	c, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(5*time.Second)))
	_, err = c.Write([]byte(pipe))
	require.NoError(t, err)
	out, err := io.ReadAll(c)
	require.NoError(t, err)
	require.Equal(t, gets, strings.Count(string(out), strings.Repeat("v", value)), "every GET is answered")
	ln.mu.Lock()
	defer ln.mu.Unlock()
	require.Less(t, ln.largest, 3*value, "a write holds the replies of one chunk (2 commands), not of the pipeline")
}
