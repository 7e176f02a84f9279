package main

import (
	"log/slog"
	"net"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// temporaryErr is an accept error the HTTP server retries (EMFILE, say).
type temporaryErr struct{}

func (temporaryErr) Error() string   { return "too many open files (test)" }
func (temporaryErr) Timeout() bool   { return false }
func (temporaryErr) Temporary() bool { return true }

// failOnce fails its first Accept with a temporary error.
type failOnce struct {
	net.Listener
	failed atomic.Bool
}

func (l *failOnce) Accept() (net.Conn, error) {
	if l.failed.CompareAndSwap(false, true) {
		return nil, temporaryErr{}
	}
	return l.Listener.Accept()
}

// TestHTTPServerErrorsInTheLog: what the HTTP server reports (a failed
// accept it retries, a handler's panic) goes to the gateway's log, as the
// RESP side's failed accepts do. With no ErrorLog, net/http wrote those
// lines with the standard logger: on stderr outside the structured log, with
// no level, in another format.
func TestHTTPServerErrorsInTheLog(t *testing.T) {
	held := make(chan func(), 1)
	goServe = func(f func()) { held <- f }
	defer func() { goServe = func(f func()) { go f() } }()
	var logs syncBuffer
	in := startGatewayLog(t, Config{}, slog.New(slog.NewTextHandler(&logs, nil)))
	serve := <-held
	in.httpLn = &failOnce{Listener: in.httpLn}
	go serve()
	for deadline := time.Now().Add(10 * time.Second); ; {
		if s := logs.String(); strings.Contains(s, "Accept error") {
			require.Contains(t, s, "too many open files (test)")
			require.Contains(t, s, "level=")
			return
		}
		require.True(t, time.Now().Before(deadline), "the failed accept was not logged: %q", logs.String())
		runtime.Gosched()
	}
}
