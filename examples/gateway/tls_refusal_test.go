package main

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTLSRefusalDoesNotBlockAccept: at max_conns, a TLS connection that never
// sends its ClientHello must not stall the accept loop. The refusal's write
// runs the TLS handshake, which reads; with only a write deadline it waited
// for the silent client forever, and every later client (and Shutdown, which
// waits for Serve to return) waited with it.
func TestTLSRefusalDoesNotBlockAccept(t *testing.T) {
	certFile, keyFile, pool := selfSigned(t, t.TempDir())
	in := startGateway(t, Config{TLSCert: certFile, TLSKey: keyFile, Limits: Limits{MaxConns: 1}})
	tlsCfg := &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}
	deadline := time.Now().Add(5 * time.Second)

	c1, err := tls.Dial("tcp", in.Addr(), tlsCfg)
	require.NoError(t, err)
	defer c1.Close()
	_ = c1.SetDeadline(deadline)
	_, err = c1.Write([]byte("PING\r\n"))
	require.NoError(t, err)
	buf := make([]byte, 64)
	n, err := io.ReadAtLeast(c1, buf, 1)
	require.NoError(t, err)
	require.Equal(t, "+PONG\r\n", string(buf[:n]), "the first connection is served")

	silent, err := net.Dial("tcp", in.Addr()) // refused, and says nothing
	require.NoError(t, err)
	defer silent.Close()

	raw, err := net.Dial("tcp", in.Addr())
	require.NoError(t, err)
	defer raw.Close()
	c3 := tls.Client(raw, tlsCfg)
	_ = c3.SetDeadline(deadline)
	n, _ = io.ReadAtLeast(c3, buf, 1)
	assert.Contains(t, string(buf[:n]), "max number of clients", "a later client is refused at once, not stuck behind the silent one")

	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- in.Shutdown(sctx) }()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("Shutdown did not return while a refused TLS client stayed silent")
	}
}
