package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestMainWithoutRedis: a test binary that finds no redis-server fails,
// saying what to run. It printed "skipping" and exited 0, so go test showed
// the package "ok" and neither the scenarios nor the unit tests beside them
// had run, while the gateway's tests fail at once on the same machine.
func TestMainWithoutRedis(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run", "^$")
	cmd.Env = append(os.Environ(), "PATH="+t.TempDir()) // the last PATH wins
	out, err := cmd.CombinedOutput()
	require.NoError(t, ctx.Err(), "%s", out)
	var exit *exec.ExitError
	require.True(t, errors.As(err, &exit), "the test binary exited 0 without redis-server: %s", out)
	require.Contains(t, string(out), ErrNoRedis.Error())
}
