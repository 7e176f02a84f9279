package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConnectionMetrics: the connection counters INFO reports
// (connected_clients, total_connections_received, rejected_connections,
// protocol_errors, requests_too_large, connection_panics) are on /metrics
// too, with the same values; a Prometheus user had only the command
// counters, and a fleet refused at max_conns or sending garbage showed
// nowhere but in INFO. Found by a review.
func TestConnectionMetrics(t *testing.T) {
	in := startGateway(t, Config{Limits: Limits{MaxConns: 2, MaxRequestBytes: 1 << 10}})
	c := client(t, in, nil)
	ctx := context.Background()
	require.NoError(t, c.Ping(ctx).Err()) // one client connected, and kept

	raw := func(give string) string {
		conn, err := net.Dial("tcp", in.Addr())
		require.NoError(t, err)
		defer conn.Close()
		require.NoError(t, conn.SetDeadline(time.Now().Add(5*time.Second)))
		_, _ = conn.Write([]byte(give))
		out, _ := io.ReadAll(conn)
		return string(out)
	}
	// waitClients waits (5 s at most) until the server counts n clients: a
	// connection the server closed leaves its count a moment later.
	waitClients := func(n int) {
		want := fmt.Sprintf("connected_clients:%d\r\n", n)
		deadline := time.Now().Add(5 * time.Second)
		for {
			info, err := c.Info(ctx, "clients").Result()
			require.NoError(t, err)
			if strings.Contains(info, want) {
				return
			}
			require.True(t, time.Now().Before(deadline), "still %q, want %q", info, want)
			runtime.Gosched()
		}
	}
	// One more connection held open: a third is over max_conns.
	held, err := net.Dial("tcp", in.Addr())
	require.NoError(t, err)
	_, err = held.Write([]byte("PING\r\n"))
	require.NoError(t, err)
	buf := make([]byte, 7)
	_, err = io.ReadFull(held, buf)
	require.NoError(t, err)
	assert.Equal(t, "-ERR max number of clients reached\r\n", raw("PING\r\n"))
	require.NoError(t, held.Close())
	waitClients(1)
	assert.True(t, strings.HasPrefix(raw("*x\r\n"), "-ERR Protocol error"))
	waitClients(1)
	got := raw("*2\r\n$3\r\nGET\r\n$100000\r\n" + strings.Repeat("a", 2048))
	assert.True(t, strings.HasPrefix(got, "-ERR Protocol error: request too large"), "%q", got)
	waitClients(1)

	info, err := c.Info(ctx, "clients", "stats").Result()
	require.NoError(t, err)
	resp, err := http.Get("http://" + in.httpLn.Addr().String() + "/metrics")
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	for field, metric := range map[string]string{
		"connected_clients":          "gateway_connected_clients",
		"total_connections_received": "gateway_connections_received_total",
		"rejected_connections":       "gateway_connections_rejected_total",
		"protocol_errors":            "gateway_protocol_errors_total",
		"tls_handshake_failures":     "gateway_tls_handshake_failures_total",
		"requests_too_large":         "gateway_requests_too_large_total",
		"connection_panics":          "gateway_connection_panics_total",
	} {
		iv := regexp.MustCompile(`(?m)^` + field + `:(\d+)\r?$`).FindStringSubmatch(info)
		require.NotNil(t, iv, "INFO has %s", field)
		mv := regexp.MustCompile(`(?m)^` + metric + ` (\S+)$`).FindStringSubmatch(string(body))
		require.NotNil(t, mv, "/metrics has %s", metric)
		assert.Equal(t, iv[1], mv[1], "%s and %s", field, metric)
	}
	want := map[string]string{"connected_clients": "1", "total_connections_received": "4", "rejected_connections": "1", "protocol_errors": "1", "requests_too_large": "1", "connection_panics": "0"}
	for field, v := range want {
		assert.Contains(t, info, fmt.Sprintf("%s:%s\r\n", field, v))
	}
}
