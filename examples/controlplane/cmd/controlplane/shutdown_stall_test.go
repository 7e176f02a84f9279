package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A request still in progress when the plane is stopped (a client stalled in
// its POST body, within the read timeout) outlasted the shutdown's wait: run
// returned the wait's "context deadline exceeded", which exits 1 as a failure
// to serve, and left the connection open, never closed. After the wait the
// server is now closed, cutting what is left, and the stop is a clean one.
func TestShutdownCutsStalledRequest(t *testing.T) {
	old := shutdownTimeout
	shutdownTimeout = 100 * time.Millisecond
	defer func() { shutdownTimeout = old }()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addr, done := launch(t, ctx, []string{"-listen", "127.0.0.1:0", "-region", "eu"})
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer conn.Close()
	_, err = conn.Write([]byte("POST /api/rollout HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n" +
		"Expect: 100-continue\r\n\r\n"))
	require.NoError(t, err)
	// The server answers 100 Continue when the handler starts reading the
	// body: from then on the request is in progress.
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(5*time.Second)))
	line, err := bufio.NewReader(conn).ReadString('\n')
	require.NoError(t, err)
	require.Contains(t, line, "100 Continue")
	_, err = conn.Write([]byte("{"))
	require.NoError(t, err)
	// Shut down while the request's body is awaited (the read timeout, 10 s,
	// is far off): run is expected to return nil and the server to close
	// the connection. A bound far above the wait tells "never" from "late".
	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("run did not return")
	}
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(5*time.Second)))
	_, err = io.ReadAll(conn)
	require.NoError(t, err, "the server kept the stalled request open after run returned")
}
