//go:build unix

package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestShutdownClosesTLSStuckInKeyUpdate: a Shutdown whose ctx ends closes
// the remaining connections at once, a TLS one whose client asked for
// KeyUpdates and never read the answers included. Its session is stuck in
// the write of an answer, inside Read, which the read deadline Shutdown sets
// does not end; tls.Conn's Close writes a close_notify first, and waited for
// that write's lock, under the server's lock: Shutdown never returned (and
// with a write deadline, not before it).
func TestShutdownClosesTLSStuckInKeyUpdate(t *testing.T) {
	srv, s, _ := keyUpdateFlood(t, time.Minute)
	select {
	case <-s.stuck:
	case <-time.After(2 * time.Second):
		t.Fatal("the session did not get stuck on the answers")
	}

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	start := time.Now()
	go func() { done <- srv.Shutdown(ctx) }()
	select {
	case err := <-done:
		require.ErrorIs(t, err, context.DeadlineExceeded)
		require.Less(t, time.Since(start), time.Second)
		require.NoError(t, <-s.served)
	case <-time.After(2 * time.Second):
		t.Fatal("Shutdown did not return after its ctx ended")
	}
}
