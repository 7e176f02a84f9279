package main

import (
	"context"
	"io"
	"os/signal"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestSecondSignalExitsAtOnce: the first SIGINT or SIGTERM drains, which
// waits for the commands the connections have read (up to 10 s); a second
// one ends the process at once, as the signal's default action does. Before,
// the handler stayed installed through the drain, so a second Ctrl-C did
// nothing. The child (this test binary, running main) is held in its drain
// by a pipeline of five INCRs of one key, each delayed 1 s by chaos.delay_us.
func TestSecondSignalExitsAtOnce(t *testing.T) {
	if asMain(t) {
		return
	}
	ctx, cancel := context.WithTimeout(t.Context(), 1500*time.Millisecond)
	defer cancel()
	cmd, stderr := startMain(ctx, t, []string{"-addr", "127.0.0.1:0", "-http", "127.0.0.1:0"})
	waited := false
	defer func() {
		if !waited {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}()
	next := nextLogLine(t, stderr)
	conn := holdInDrain(ctx, t, next("gateway serving"), 5, time.Second)
	defer conn.Close()

	// A process started with SIGINT ignored (a shell's background job is)
	// passes that on to the child, whose signal.Stop then restores it:
	// the second signal is SIGTERM there, whose default action ends it.
	second := syscall.SIGINT
	if signal.Ignored(syscall.SIGINT) {
		second = syscall.SIGTERM
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	next("shutting down: draining connections and flushing batches")
	require.NoError(t, cmd.Process.Signal(second))
	go func() { _, _ = io.Copy(io.Discard, stderr) }()
	_ = cmd.Wait()
	waited = true
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	require.True(t, ok)
	require.True(t, ws.Signaled() && ws.Signal() == second,
		"want the child ended by the second signal (%v) during its drain, got %v", second, cmd.ProcessState)
}
