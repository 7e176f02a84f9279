package main

import (
	"context"
	"net"
	"runtime"
	"runtime/trace"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestShutdownEndsTraceToSlowReader: an execution trace in progress through
// /debug/pprof/trace whose client has stopped reading ends when the gateway
// shuts down. The trace's writer was blocked on the client's full socket,
// which the request's context does not end, and runtime/trace's Stop waits
// for it: the handler never returned and Shutdown waited out its context.
func TestShutdownEndsTraceToSlowReader(t *testing.T) {
	in := startGateway(t, Config{})
	c, err := net.Dial("tcp", in.httpLn.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.(*net.TCPConn).SetReadBuffer(4096))
	_, err = c.Write([]byte("GET /debug/pprof/trace?seconds=60 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
	require.NoError(t, err)
	// Log into the trace until its writer is blocked on the socket.
	writerBlocked := func() bool {
		buf := make([]byte, 1<<20)
		for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
			if strings.Contains(g, "runtime/trace.(*traceMultiplexer).startLocked") && strings.Contains(g, "waitWrite") {
				return true
			}
		}
		return false
	}
	msg := strings.Repeat("x", 1<<16)
	for deadline := time.Now().Add(10 * time.Second); !writerBlocked(); {
		require.True(t, time.Now().Before(deadline), "the trace's writer never blocked")
		for range 16 {
			trace.Log(context.Background(), "fill", msg)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	require.NoError(t, in.Shutdown(ctx), "Shutdown waited for the trace's client")
}
