//go:build unix

package main

import (
	"context"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/tls"
	"io"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestTLSKeyUpdateAfterWriteTimeout: a TLS 1.3 client that asks for a
// KeyUpdate once write_timeout has passed since the last reply keeps its
// connection, and gets the reply to the command after it. crypto/tls writes
// the answer to a KeyUpdate inside Read, under the write deadline, which was
// the last reply's (that reply's time plus write_timeout): long past, the
// answer failed, crypto/tls kept the failure for the next write, and the
// reply to the command was never written; the connection was closed.
func TestTLSKeyUpdateAfterWriteTimeout(t *testing.T) {
	const wto = 200 * time.Millisecond
	certFile, keyFile, pool := selfSigned(t, t.TempDir())
	srv := memkvServer(t, Config{Limits: Limits{WriteTimeout: Duration(wto)}})
	s := serveTLS(t, srv, certFile, keyFile)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	})

	raw, err := net.Dial("tcp", s.addr)
	require.NoError(t, err)
	defer func() { _ = raw.Close() }()
	require.NoError(t, raw.SetDeadline(time.Now().Add(2*time.Second)))
	// The client reads the replies (and handles the gateway's KeyUpdate);
	// w writes the commands and the KeyUpdate request, with its keys.
	var keys keyLog
	c := tls.Client(raw, &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS13, KeyLogWriter: &keys})
	require.NoError(t, c.Handshake())
	w := &tls13Writer{raw: raw}
	switch suite := c.ConnectionState().CipherSuite; suite {
	case tls.TLS_AES_128_GCM_SHA256:
		w.hash, w.keyLen = sha256.New, 16
	case tls.TLS_AES_256_GCM_SHA384:
		w.hash, w.keyLen = sha512.New384, 32
	default:
		t.Skipf("cipher suite %s: the test writes AES-GCM records only", tls.CipherSuiteName(suite))
	}
	secret := keys.secret("CLIENT_TRAFFIC_SECRET_0")
	require.NotNil(t, secret)
	w.setSecret(secret)

	got := make([]byte, 7)
	_, err = raw.Write(w.record(23, []byte("PING\r\n")))
	require.NoError(t, err)
	_, err = io.ReadFull(c, got)
	require.NoError(t, err)
	require.Equal(t, "+PONG\r\n", string(got))

	// The reply's write deadline passes; the connection is only idle (far
	// from idle_timeout).
	time.Sleep(wto + wto/2)

	_, err = raw.Write(append(w.keyUpdate(), w.record(23, []byte("PING\r\n"))...))
	require.NoError(t, err)
	_, err = io.ReadFull(c, got)
	require.NoError(t, err, "the connection survives a KeyUpdate after write_timeout")
	require.Equal(t, "+PONG\r\n", string(got))
}
