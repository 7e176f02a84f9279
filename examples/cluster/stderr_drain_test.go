package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestStartProcDrainsStderr: a stderr line longer than the scanner's 64 KB
// (a panic's stack logged as one slog attribute, say) stopped the scanner,
// and nothing read the pipe after it: once the pipe filled, the child
// blocked on its next write to stderr (a gateway: every goroutine that
// logs), and the reaper's Wait waited for it for good. The rest of stderr is
// now drained.
func TestStartProcDrainsStderr(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	script := `head -c 70000 /dev/zero | tr '\000' x >&2; echo >&2; head -c 200000 /dev/zero >&2; echo done >&2`
	p, err := startProc(ctx, "long line", "sh", []string{"-c", script}, nil, nil)
	require.NoError(t, err)
	t.Cleanup(p.kill)
	require.NoError(t, poll(ctx, 5*time.Second, 10*time.Millisecond, func() (bool, error) { return !p.alive(), nil }),
		"the child still runs: it is blocked writing to a stderr nobody reads")
}
