package main

import (
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBulkOverLimitRefusedAtOnce: a bulk whose announced length alone takes
// its command past max_request_bytes (a "$2147483648" in a SET) is refused
// as soon as its length line is read, with nothing more read from the
// client, as Redis refuses a bulk past its proto-max-bulk-len. It was read
// on up to max_request_bytes first: a client that announced 2 GB and then
// sent nothing, or a byte now and then, held its connection open until
// idle_timeout, the gateway growing a buffer for a command it could never
// serve.
func TestBulkOverLimitRefusedAtOnce(t *testing.T) {
	const limit = 1 << 10
	in := startGateway(t, Config{HTTPAddr: "-", Limits: Limits{MaxRequestBytes: limit, IdleTimeout: Duration(time.Minute)}})
	head := "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n"
	for _, announced := range []string{"2147483648", "9223372036854775807", strconv.Itoa(limit)} {
		conn, err := net.Dial("tcp", in.Addr())
		require.NoError(t, err)
		require.NoError(t, conn.SetDeadline(time.Now().Add(5*time.Second)))
		_, err = conn.Write([]byte(head + "$" + announced + "\r\n"))
		require.NoError(t, err)
		out, err := io.ReadAll(conn) // the client sends nothing more
		_ = conn.Close()
		require.NoError(t, err, "$%s: the error, then the end of the stream (got %q)", announced, out)
		assert.Equal(t, "-ERR Protocol error: request too large\r\n", string(out), "$%s", announced)
	}

	// A command of exactly max_request_bytes is still served.
	conn, err := net.Dial("tcp", in.Addr())
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.SetDeadline(time.Now().Add(5*time.Second)))
	size := limit - len(head) - len("$NNN\r\n\r\n") // a length of three digits
	cmd := head + "$" + strconv.Itoa(size) + "\r\n" + strings.Repeat("v", size) + "\r\n"
	require.Len(t, cmd, limit)
	_, err = conn.Write([]byte(cmd + "QUIT\r\n"))
	require.NoError(t, err)
	out, err := io.ReadAll(conn)
	require.NoError(t, err)
	assert.Equal(t, "+OK\r\n+OK\r\n", string(out))
}
