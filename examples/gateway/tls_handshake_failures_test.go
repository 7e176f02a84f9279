package main

import (
	"context"
	"crypto/tls"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTLSHandshakeFailuresCounted: a plaintext client on the TLS port fails
// its handshake. It was counted in protocol_errors ("connections closed for
// malformed input"), so a spike of failed handshakes (port scanners, clients
// without TLS) looked like malformed RESP, and the gateway wrote an "-ERR
// tls: ..." reply over a connection with no TLS session. It counts in
// tls_handshake_failures (and gateway_tls_handshake_failures_total), gets
// nothing, and is logged at most once every refusalLogEvery; so does a client
// that refuses the gateway's certificate (its alert was a net.Error, which
// nothing counted).
func TestTLSHandshakeFailuresCounted(t *testing.T) {
	certFile, keyFile, pool := selfSigned(t, t.TempDir())
	var logs syncBuffer
	in := startGatewayLog(t, Config{TLSCert: certFile, TLSKey: keyFile}, slog.New(slog.NewTextHandler(&logs, nil)))
	plain := func() string {
		c, err := net.Dial("tcp", in.Addr())
		require.NoError(t, err)
		defer c.Close()
		require.NoError(t, c.SetDeadline(time.Now().Add(5*time.Second)))
		_, err = c.Write([]byte("PING\r\n"))
		require.NoError(t, err)
		got, _ := io.ReadAll(c) // until the gateway closes it (EOF or a reset)
		assert.Empty(t, got, "nothing is written to a connection without a TLS session")
		return c.LocalAddr().String()
	}
	first := plain()
	plain()
	// A client that refuses the certificate (not in its roots) fails too.
	raw, err := net.Dial("tcp", in.Addr())
	require.NoError(t, err)
	defer raw.Close()
	require.NoError(t, raw.SetDeadline(time.Now().Add(5*time.Second)))
	require.Error(t, tls.Client(raw, &tls.Config{ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}).Handshake())
	_, _ = io.ReadAll(raw) // until the gateway closes it

	c := client(t, in, &redis.Options{TLSConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}})
	info, err := c.Info(context.Background(), "stats").Result()
	require.NoError(t, err)
	assert.Equal(t, int64(0), infoField(t, info, "protocol_errors"), "a failed handshake is not malformed input")
	assert.Equal(t, int64(3), infoField(t, info, "tls_handshake_failures"))

	out := logs.String()
	assert.Equal(t, 1, strings.Count(out, "TLS handshake failed"), "logged once per refusalLogEvery: %s", out)
	assert.Contains(t, out, "remote="+first)
	assert.Contains(t, out, "first record does not look like a TLS handshake")
}
