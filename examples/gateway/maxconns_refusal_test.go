package main

import (
	"io"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestMaxConnsRefusalReadable: a connection over max_conns that sends its
// first command at once, as every client does (go-redis its HELLO), reads
// the refusal's error and then the end of the stream, as from Redis. The
// refusal closed the connection with the command unread, and the kernel
// reset it: the client saw "connection reset by peer", often before it had
// read the error.
func TestMaxConnsRefusalReadable(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-", Limits: Limits{MaxConns: 1}})
	c1, err := net.Dial("tcp", in.Addr())
	require.NoError(t, err)
	defer c1.Close()
	_, err = c1.Write([]byte("PING\r\n"))
	require.NoError(t, err)
	buf := make([]byte, 64)
	_, err = io.ReadAtLeast(c1, buf, len("+PONG\r\n"))
	require.NoError(t, err)
	for i := range 20 {
		c, err := net.Dial("tcp", in.Addr())
		require.NoError(t, err)
		require.NoError(t, c.SetDeadline(time.Now().Add(5*time.Second)))
		_, err = c.Write([]byte("*2\r\n$5\r\nHELLO\r\n$1\r\n3\r\n"))
		require.NoError(t, err)
		out, err := io.ReadAll(c)
		_ = c.Close()
		require.NoError(t, err, "connection %d: the error, then the end of the stream (got %q)", i, out)
		require.Equal(t, "-ERR max number of clients reached\r\n", string(out), "connection %d", i)
	}
}
