package main

import (
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestHTTPServeFailureLogged: when the HTTP listener fails for good, Serve
// returns and /metrics, /control and /debug/pprof stop answering while the
// RESP side serves on. Its error was dropped without a word; it is now
// logged. A Serve that ends because of Shutdown logs nothing.
func TestHTTPServeFailureLogged(t *testing.T) {
	held := make(chan func(), 1)
	goServe = func(f func()) { held <- f }
	defer func() { goServe = func(f func()) { go f() } }()
	var logs syncBuffer
	in := startGatewayLog(t, Config{}, slog.New(slog.NewTextHandler(&logs, nil)))
	serve := <-held

	require.NoError(t, in.httpLn.Close()) // the listener fails: Accept errs for good
	serve()
	require.Contains(t, logs.String(), "HTTP server stopped")
	require.Contains(t, logs.String(), "use of closed network connection")

	// Shutdown's own ending of Serve is not a failure.
	held2 := make(chan func(), 1)
	goServe = func(f func()) { held2 <- f }
	var logs2 syncBuffer
	in2 := startGatewayLog(t, Config{}, slog.New(slog.NewTextHandler(&logs2, nil)))
	serve2 := <-held2
	go serve2()
	require.NoError(t, in2.Shutdown(t.Context()))
	require.NotContains(t, logs2.String(), "HTTP server stopped")
}
