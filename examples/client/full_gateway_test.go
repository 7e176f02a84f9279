package client_test

import (
	"context"
	"io"
	"net"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/client"
)

// fullRESP is a loopback host at its connection limit, as examples/gateway
// (refuse) and redis-server answer one: each connection it accepts gets
// "-ERR max number of clients reached", the end of the stream, and whatever
// the client sends is read and dropped until it hangs up. It stops at
// cleanup.
func fullRESP(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var wg sync.WaitGroup
	t.Cleanup(func() { _ = ln.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer conn.Close()
				if _, err := io.WriteString(conn, "-ERR max number of clients reached\r\n"); err != nil {
					return
				}
				_ = conn.(*net.TCPConn).CloseWrite()
				_, _ = io.Copy(io.Discard, conn) // until the client closes: bounded by Close at cleanup
			})
		}
	})
	return ln.Addr().String()
}

// A gateway at its connection limit refuses a new connection with "ERR max
// number of clients reached": the gateway is busy, not the request wrong, and
// another gateway of the ring has room. The request must go to the next host.
// go-redis reads that refusal as an answer to its HELLO, then meets the end
// of the stream: the client sees EOF, retries and ejects the full gateway for
// EjectFor like a dead one. A review suspected the request failed; it does
// not, and this keeps it so.
func TestFullGatewayRetried(t *testing.T) {
	for _, cfg := range []client.Config{{}, {Username: "u", Password: "p"}} {
		full, live := fullRESP(t), fakeRESP(t, func(args []string) string {
			if args[0] == "AUTH" || args[0] == "auth" {
				return "+OK\r\n"
			}
			return "$1\r\nv\r\n"
		})
		c := routedClient(t, cfg, full, live)
		key := keyRouted(t, c, func(tg client.Target) bool { return tg.Host == full })
		v, err := c.Get(context.Background(), key)
		require.NoError(t, err, "auth %v", cfg.Username != "")
		require.Equal(t, "v", v)
		st := c.Stats()
		require.Equal(t, uint64(1), st.Retries)
		require.Zero(t, st.Failures)
		require.NoError(t, c.Close())
	}
}
