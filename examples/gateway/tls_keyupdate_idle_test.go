//go:build unix

package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTLSKeyUpdateFloodHonorsIdleTimeout: a TLS client that sends no
// command, asks for KeyUpdates and never reads the answers is closed after
// idle_timeout, as any connection without a request. crypto/tls writes the
// answer to a KeyUpdate inside Read, and the connection had no write
// deadline before its first reply: once the client's window was full, that
// write blocked for ever, out of reach of the read deadline, and the
// connection kept its max_conns slot until the process ended.
func TestTLSKeyUpdateFloodHonorsIdleTimeout(t *testing.T) {
	srv, s, start := keyUpdateFlood(t, time.Second)
	select {
	case <-s.closed:
	case <-time.After(time.Until(start.Add(2 * time.Second))):
		assert.Fail(t, "the connection outlived idle_timeout")
	}

	// Bounded, so that the test ends without the fix too.
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	done := make(chan struct{})
	go func() { _ = srv.Shutdown(ctx); close(done) }()
	select {
	case <-done:
		require.NoError(t, <-s.served)
	case <-time.After(2 * time.Second):
		t.Fatal("Shutdown did not return")
	}
}
