package main

import (
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestOTelExportErrorsRateLimited: a failing span exporter (-otel stdout
// with its reader gone) is logged at most once per 10 s, as a shard's
// outage is. OpenTelemetry's default error handler printed the stdout
// exporter's error, a line per span of the batch, on stderr: one log line
// per traced command, as many as clients sent.
func TestOTelExportErrorsRateLimited(t *testing.T) {
	if asMain(t) {
		return
	}
	c := startOTelStdoutClosed(t)
	// The shutdown exports what is left: every span has failed by the end
	// of stderr.
	require.NoError(t, c.cmd.Process.Signal(syscall.SIGTERM))
	failures := 0
	for c.lines.Scan() {
		if strings.Contains(c.lines.Text(), "broken pipe") {
			failures++
		}
	}
	require.NoError(t, c.lines.Err())
	require.Equal(t, 1, failures, "export failures logged for 1,024 spans")
}
