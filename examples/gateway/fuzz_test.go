package main

import (
	"io"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// FuzzProtocol feeds arbitrary bytes to a connection of the front end.
// Invariants: no panic; the connection always ends (the server never hangs on
// malformed input); whatever it answers is well-formed RESP (every reply
// starts with a type byte).
func FuzzProtocol(f *testing.F) {
	for _, s := range []string{
		"PING\r\n",
		"*1\r\n$4\r\nPING\r\n",
		"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n",
		"*2\r\n$5\r\nHELLO\r\n$1\r\n3\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n",
		"*5\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n$2\r\nEX\r\n$2\r\n-1\r\n",
		"*2\r\n$4\r\nINCR\r\n$1\r\nk\r\n", "*x\r\n", "*1\r\n$-1\r\n", "$5\r\nhello\r\n",
		"*3\r\n$4\r\nMGET\r\n$1\r\na\r\n$1\r\nb\r\n", "QUIT\r\nPING\r\n", "\"unbalanced\r\n",
		"*2\r\n$4\r\nAUTH\r\n$1\r\nx\r\n", "*1\r\n$4\r\nINFO\r\n", "*2\r\n$6\r\nCONFIG\r\n$3\r\nGET\r\n",
	} {
		f.Add([]byte(s))
	}
	in := startGateway(f, Config{HTTPAddr: "-", Limits: Limits{MaxRequestBytes: 1 << 12, MaxArgs: 16, MaxPipeline: 8}})
	f.Fuzz(func(t *testing.T, data []byte) {
		conn, err := net.Dial("tcp", in.Addr())
		require.NoError(t, err)
		defer conn.Close()
		_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
		_, err = conn.Write(data)
		require.NoError(t, err)
		require.NoError(t, conn.(*net.TCPConn).CloseWrite()) // EOF after the input
		out, err := io.ReadAll(conn)
		require.NoError(t, err, "the server ends the connection (input %q)", data)
		if len(out) > 0 {
			require.Contains(t, "+-:$*%_", string(out[0]), "reply %q", out)
		}
	})
}
