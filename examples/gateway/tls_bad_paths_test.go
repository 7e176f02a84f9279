package main

import (
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/internal/leak"
)

// TestTLSBadPathsRefusedAtStart: a TLS setting that cannot serve (a missing
// certificate or key file, an empty file, the two files switched) stops the
// start with a "gateway: tls:" error that names the cause, and leaves
// nothing running: no gateway half built, nothing listening on the port.
// Only a working certificate was tested (TestTLS).
func TestTLSBadPathsRefusedAtStart(t *testing.T) {
	leak.Check(t)
	dir := t.TempDir()
	certFile, keyFile, _ := selfSigned(t, dir)
	missing, empty := filepath.Join(dir, "missing.pem"), filepath.Join(dir, "empty.pem")
	require.NoError(t, os.WriteFile(empty, nil, 0o600))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close()) // free now: the failed starts must leave it so
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, tc := range []struct{ name, cert, key, want string }{
		{"missing cert", missing, keyFile, "missing.pem: no such file"},
		{"missing key", certFile, missing, "missing.pem: no such file"},
		{"empty cert", empty, keyFile, "failed to find any PEM data in certificate input"},
		{"switched", keyFile, certFile, "PEM inputs may have been switched"},
	} {
		in, err := start(Config{Addr: addr, HTTPAddr: "-", TLSCert: tc.cert, TLSKey: tc.key}, log)
		require.Nil(t, in, tc.name)
		require.ErrorContains(t, err, "gateway: tls: ", tc.name)
		require.ErrorContains(t, err, tc.want, tc.name)
	}
	ln, err = net.Listen("tcp", addr)
	require.NoError(t, err, "a failed start left its port bound")
	require.NoError(t, ln.Close())
}
