package main

import (
	"context"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestServeAfterShutdown: a Shutdown that comes before Serve (a signal as
// the gateway starts: start runs Serve on a goroutine) makes Serve return nil,
// as after Shutdown, and close the listener it was given, which nobody else
// closes.
func TestServeAfterShutdown(t *testing.T) {
	srv := memkvServer(t, Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, srv.Shutdown(ctx))

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	require.NoError(t, srv.Serve(ln), "Serve after Shutdown returns nil")
	_ = ln.(*net.TCPListener).SetDeadline(time.Now()) // an open listener's Accept times out at once
	_, err = ln.Accept()
	require.ErrorIs(t, err, net.ErrClosed, "the listener is closed")
}

// TestShutdownTwice: a second Shutdown (a signal during a test's own
// Shutdown, or two callers at once) returns the first one's result. It
// closed the Gateway again and panicked on the workers' closed channel.
func TestShutdownTwice(t *testing.T) {
	srv := memkvServer(t, Config{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			defer func() {
				if r := recover(); r != nil {
					errs <- fmt.Errorf("panic: %v", r)
				}
			}()
			errs <- srv.Shutdown(ctx)
		}()
	}
	require.NoError(t, <-errs)
	require.NoError(t, <-errs)
	require.NoError(t, srv.Shutdown(ctx), "a third, after both returned")
	require.NoError(t, <-served)
}

// memkvServer returns a Server, not serving yet, in front of a gateway on one
// memkv shard, configured by cfg and its defaults.
func memkvServer(t *testing.T, cfg Config) *Server {
	t.Helper()
	cfg, err := cfg.withDefaults()
	require.NoError(t, err)
	backend, err := newMemkvBackend(1)
	require.NoError(t, err)
	g, err := newGateway(cfg, backend, nil)
	require.NoError(t, err)
	return newServer(g, cfg)
}
