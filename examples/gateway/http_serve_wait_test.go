package main

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestShutdownWaitsForHTTPServe: Shutdown does not report success while the
// HTTP server's Serve has not returned. It was not awaited: a Serve whose
// goroutine had not begun when Shutdown ran outlived it, and left the HTTP
// listener open (accepting into its backlog) until it began.
func TestShutdownWaitsForHTTPServe(t *testing.T) {
	held := make(chan func(), 1)
	goServe = func(f func()) { held <- f }
	defer func() { goServe = func(f func()) { go f() } }()
	in := startGateway(t, Config{})
	serve := <-held

	// Explicit time: Shutdown, with nothing else to wait for, ends at the
	// deadline if it waits for Serve, and at once if it does not.
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	err := in.Shutdown(ctx)
	require.ErrorIs(t, err, context.DeadlineExceeded, "Shutdown returned with the HTTP server's Serve not yet run")

	// Serve, begun late, returns at once and closes the listener.
	served := make(chan struct{})
	go func() { serve(); close(served) }()
	select {
	case <-served:
	case <-time.After(10 * time.Second):
		t.Fatal("Serve begun after Shutdown did not return")
	}
	_, aerr := in.httpLn.Accept()
	require.True(t, errors.Is(aerr, net.ErrClosed), "the HTTP listener is still open: %v", aerr)
}
