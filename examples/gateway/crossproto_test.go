package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// TestCrossProtocolClosed: a web page can make a browser POST text/plain to
// the RESP port without a CORS preflight. The gateway answered each header
// line "unknown command" and then ran the body through the open default
// tenant (found by a review). As Redis does, a connection whose command is
// POST or "Host:" is closed and nothing from it on runs; the commands before
// it run and are answered (Redis runs them but drops their replies).
func TestCrossProtocolClosed(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-"})
	body := "SET pwned from-a-web-page\r\n"
	for _, tc := range []struct {
		name, give, want string
	}{
		{"POST", fmt.Sprintf("POST / HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n%s", len(body), body), ""},
		{"lower-case post", "post / HTTP/1.1\r\n" + body, ""},
		{"Host: first", "Host: x\r\n" + body, ""},
		{"commands before it run", "SET before 1\r\nPING\r\nPOST / HTTP/1.1\r\n" + body, "+OK\r\n+PONG\r\n"},
		{"a RESP POST", "*1\r\n$4\r\nPOST\r\n" + body, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := net.Dial("tcp", in.Addr())
			require.NoError(t, err)
			defer c.Close()
			_, err = c.Write([]byte(tc.give))
			require.NoError(t, err)
			require.NoError(t, c.SetReadDeadline(time.Now().Add(5*time.Second)))
			out, err := io.ReadAll(c) // ends when the gateway closes the connection
			require.NoError(t, err)
			require.Equal(t, tc.want, string(out))
			err = client(t, in, nil).Get(context.Background(), "pwned").Err()
			require.ErrorIs(t, err, redis.Nil, "the body of an HTTP request sent to the RESP port ran")
		})
	}
	info, err := client(t, in, nil).Info(context.Background(), "stats").Result()
	require.NoError(t, err)
	require.Contains(t, info, "protocol_errors:5")
}
