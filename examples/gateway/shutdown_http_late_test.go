package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// slowCloseBackend is a backend whose Close returns only once done is
// closed: a flush or a feed that takes the rest of the drain's time.
type slowCloseBackend struct {
	Backend
	done <-chan struct{}
}

func (b *slowCloseBackend) Close() error {
	<-b.done
	return b.Backend.Close()
}

// TestShutdownDrainedLateReportsNoHTTPServer: a Shutdown whose RESP side
// drained every connection and closed the gateway, but only once its
// context had ended (a backend whose Close took the rest of the time: a
// stopped shard, say), stops the HTTP server too, and says so: it reported
// "the HTTP server still serving" whenever its wait for the HTTP Serve to
// return met the ended context first, though Serve returns as soon as
// Shutdown closes its listener; run then exited with status 1 after a drain
// that lost nothing.
func TestShutdownDrainedLateReportsNoHTTPServer(t *testing.T) {
	for range 20 {
		in := startGateway(t, Config{})
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		in.gw.backend = &slowCloseBackend{Backend: in.gw.backend, done: ctx.Done()}
		err := in.Shutdown(ctx)
		cancel()
		require.NoError(t, err, "every connection drained and the gateway closed")
	}
}
