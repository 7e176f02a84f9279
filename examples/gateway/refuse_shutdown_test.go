package main

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestShutdownEndsRefusals: a connection refused at max_conns whose client
// never reads (its message stays in the socket buffer) or never completes
// the TLS handshake (the refusal's write runs it, and waits for the client)
// leaves no refusal goroutine once Shutdown returns. Shutdown did not wait
// for them: the silent TLS client's refusal ran for a second more, its
// connection still open.
func TestShutdownEndsRefusals(t *testing.T) {
	for _, tc := range []struct {
		name string
		tls  bool
	}{
		{"plain, never reads", false},
		{"TLS, never handshakes", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{HTTPAddr: "-", Limits: Limits{MaxConns: 1}}
			var tlsCfg *tls.Config
			if tc.tls {
				certFile, keyFile, pool := selfSigned(t, t.TempDir())
				cfg.TLSCert, cfg.TLSKey = certFile, keyFile
				tlsCfg = &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}
			}
			in := startGateway(t, cfg)
			deadline := time.Now().Add(5 * time.Second)

			raw, err := net.Dial("tcp", in.Addr()) // served: takes the one slot
			require.NoError(t, err)
			defer raw.Close()
			first := raw
			if tc.tls {
				first = tls.Client(raw, tlsCfg)
			}
			_ = first.SetDeadline(deadline)
			_, err = first.Write([]byte("PING\r\n"))
			require.NoError(t, err)
			buf := make([]byte, 64)
			n, err := io.ReadAtLeast(first, buf, 1)
			require.NoError(t, err)
			require.Equal(t, "+PONG\r\n", string(buf[:n]))

			silent, err := net.Dial("tcp", in.Addr()) // refused; reads and sends nothing
			require.NoError(t, err)
			defer silent.Close()
			// The refusal takes its slot on the accept loop; real
			// network, so a bounded poll.
			for in.srv.refused.Load() == 0 {
				require.True(t, time.Now().Before(deadline), "the connection over max_conns was not refused")
				time.Sleep(time.Millisecond)
			}

			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			require.NoError(t, in.Shutdown(ctx))
			require.Zero(t, len(in.srv.refusing), "refusal goroutines still running after Shutdown")
			in.srv.mu.Lock()
			defer in.srv.mu.Unlock()
			require.Empty(t, in.srv.refusals, "refused connections still open after Shutdown")
		})
	}
}
