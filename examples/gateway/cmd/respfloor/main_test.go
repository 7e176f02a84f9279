package main

import (
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/internal/leak"
)

// TestServe: over a loopback connection, each request (sent in one write,
// so pipelined) gets its replies in order: GET the fixed 64-byte value
// whatever the key, set or not, PING PONG, anything else OK, in any case
// and inline as in RESP arrays. Closing the listener ends serve with nil,
// and no connection goroutine outlives the test.
func TestServe(t *testing.T) {
	leak.Check(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	served := make(chan error, 1)
	go func() { served <- serve(ln) }()

	bulk := "$64\r\n" + strings.Repeat("x", 64) + "\r\n"
	for _, tc := range []struct {
		name, give, want string
	}{
		{"PING", "*1\r\n$4\r\nPING\r\n", "+PONG\r\n"},
		{"GET of a key never set", "*2\r\n$3\r\nGET\r\n$7\r\nmissing\r\n", bulk},
		{"SET then GET, pipelined",
			"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n*1\r\n$4\r\nPING\r\n",
			"+OK\r\n" + bulk + "+PONG\r\n"},
		{"any case", "*2\r\n$3\r\nget\r\n$1\r\nk\r\n*1\r\n$4\r\nPiNg\r\n", bulk + "+PONG\r\n"},
		{"inline", "PING\r\nGET k\r\nDEL k\r\n", "+PONG\r\n" + bulk + "+OK\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := net.Dial("tcp", ln.Addr().String())
			require.NoError(t, err)
			defer c.Close()
			require.NoError(t, c.SetDeadline(time.Now().Add(5*time.Second)))
			_, err = io.WriteString(c, tc.give)
			require.NoError(t, err)
			got := make([]byte, len(tc.want))
			_, err = io.ReadFull(c, got)
			require.NoError(t, err)
			assert.Equal(t, tc.want, string(got))
		})
	}

	// A connection left open is closed by the server when serve ends.
	idle, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	defer idle.Close()
	require.NoError(t, idle.SetDeadline(time.Now().Add(5*time.Second)))
	_, err = io.WriteString(idle, "PING\r\n")
	require.NoError(t, err)
	got := make([]byte, len("+PONG\r\n"))
	_, err = io.ReadFull(idle, got)
	require.NoError(t, err)
	require.NoError(t, ln.Close())
	select {
	case err := <-served:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("serve did not return after its listener closed")
	}
	_, err = idle.Read(got)
	assert.ErrorIs(t, err, io.EOF, "the open connection is closed")
}
