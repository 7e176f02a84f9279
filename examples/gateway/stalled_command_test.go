package main

import (
	"context"
	"io"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestStalledHalfCommandClosedAtIdleTimeout: a client that sends the start
// of a command (here after a complete one) and then stalls is closed within
// idle_timeout of its last complete command: the command before is
// answered, the half command does not run, and the client reads the end of
// the stream. Only a connection idle between commands was tested
// (TestIdleConnectionClosedAfterIdleTimeout); a read waiting for the rest of
// a command is held by the same deadline.
func TestStalledHalfCommandClosedAtIdleTimeout(t *testing.T) {
	const idle = 300 * time.Millisecond
	in := startGateway(t, Config{HTTPAddr: "-", Limits: Limits{IdleTimeout: Duration(idle)}})
	c, err := net.Dial("tcp", in.Addr())
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(10*time.Second)))
	sent := time.Now()
	_, err = c.Write([]byte("PING\r\n*3\r\n$3\r\nSET\r\n$7\r\nstalled\r\n$5\r\nab"))
	require.NoError(t, err)
	out, err := io.ReadAll(c)
	require.NoError(t, err, "the end of the stream, not a reset")
	require.Equal(t, "+PONG\r\n", string(out))
	require.Less(t, time.Since(sent), idle+2*time.Second, "closed by idle_timeout (and the test's slack)")

	rc := client(t, in, nil)
	require.Zero(t, rc.Exists(context.Background(), "stalled").Val(), "the half command did not run")
}
