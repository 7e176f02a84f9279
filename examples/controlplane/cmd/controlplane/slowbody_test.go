package main

import (
	"context"
	"io"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A client that sends a POST's headers and then stalls in its body held its
// connection and a handler goroutine for as long as it liked: the server
// bounded the headers' read only, so local processes could pile up
// connections without end. The server now bounds the whole request's read, as
// the gateway's HTTP server does.
func TestStalledBodyIsCut(t *testing.T) {
	old := readTimeout
	readTimeout = 200 * time.Millisecond
	defer func() { readTimeout = old }()
	ctx, cancel := context.WithCancel(context.Background())
	addr, done := launch(t, ctx, []string{"-listen", "127.0.0.1:0", "-region", "eu"})
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer conn.Close()
	_, err = conn.Write([]byte("POST /api/rollout HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"))
	require.NoError(t, err)
	// The server answers the truncated body and closes, or just closes; a
	// bound far above the timeout tells "never" from "late".
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(5*time.Second)))
	_, err = io.ReadAll(conn)
	require.NoError(t, err, "the server kept the stalled request open")
	cancel()
	require.NoError(t, <-done)
}
