package main

import (
	"context"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestShutdownEndsProfileInProgress: a CPU profile being taken through
// /debug/pprof/profile?seconds=60 ends when the gateway shuts down, instead
// of holding Shutdown until its context's deadline (which made the shutdown
// fail and a SIGTERM take the whole 10 s grace period).
func TestShutdownEndsProfileInProgress(t *testing.T) {
	in := startGateway(t, Config{})
	done := make(chan error, 1)
	go func() {
		resp, err := http.Get("http://" + in.httpLn.Addr().String() + "/debug/pprof/profile?seconds=60")
		if err == nil {
			_, err = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
		}
		done <- err
	}()
	// Wait until the handler is profiling: its goroutine is in pprof's sleep.
	inSleep := func() bool {
		buf := make([]byte, 1<<20)
		return strings.Contains(string(buf[:runtime.Stack(buf, true)]), "net/http/pprof.sleep")
	}
	for deadline := time.Now().Add(10 * time.Second); !inSleep(); {
		require.True(t, time.Now().Before(deadline), "the profile request never reached the handler")
		runtime.Gosched()
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	began := time.Now()
	require.NoError(t, in.Shutdown(ctx))
	require.Less(t, time.Since(began), 10*time.Second, "Shutdown waited for the profile")
	require.NoError(t, <-done, "the profile is answered, cut short")
}
