package main

import (
	"bufio"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestResetInReadRefusalEndsCleanly: a command past the unauthenticated
// limits that a RESET before it in the same read logged out is a protocol
// error, and its connection ends as the README says of one: the error, then
// the end of the stream, what the client still sends read and dropped. The
// connection was closed at once, with the rest of the client's pipeline
// unread, and the client got "connection reset by peer" instead.
func TestResetInReadRefusalEndsCleanly(t *testing.T) {
	gw := startGateway(t, Config{HTTPAddr: "-", Tenants: []TenantConfig{{Name: "default", Password: "pw"}}})
	mget11 := "*11\r\n$4\r\nMGET\r\n" + strings.Repeat("$1\r\nk\r\n", 10)
	for range 3 {
		conn, err := net.Dial("tcp", gw.Addr())
		require.NoError(t, err)
		require.NoError(t, conn.SetDeadline(time.Now().Add(10*time.Second)))
		br := bufio.NewReader(conn)
		_, err = conn.Write([]byte("AUTH pw\r\n"))
		require.NoError(t, err)
		line, err := br.ReadString('\n')
		require.NoError(t, err)
		require.Equal(t, "+OK\r\n", line)
		written := make(chan error, 1)
		go func() {
			// More than the first read takes: the rest is still to
			// be read when the refused command is answered.
			_, err := conn.Write([]byte("RESET\r\n" + mget11 + strings.Repeat("PING\r\n", 100000)))
			if err == nil {
				err = conn.(*net.TCPConn).CloseWrite()
			}
			written <- err
		}()
		out, err := io.ReadAll(br)
		require.NoError(t, err, "the connection ends with the end of the stream (got %q)", out)
		assert.Equal(t, "+RESET\r\n-ERR Protocol error: unauthenticated multibulk length\r\n", string(out))
		require.NoError(t, <-written, "the client sends all of its request")
		require.NoError(t, conn.Close())
	}
}
