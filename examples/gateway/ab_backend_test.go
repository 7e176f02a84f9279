package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestABRefusesUnknownBackend: ab.sh ran any backend other than redis on
// memkv (Redis, a typo), its table reading like a Redis run's. It must stop
// before starting anything.
func TestABRefusesUnknownBackend(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, "ab.sh", "Redis", "100", "2", "1", "false")
	cmd.Env = append(os.Environ(), "PATH="+onlyDirname(t))
	var e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &e, &e
	err = cmd.Run()
	require.NoError(t, ctx.Err(), "ab.sh ran on: %s", e.String())
	var exit *exec.ExitError
	require.True(t, errors.As(err, &exit), "ab.sh: %v: %s", err, e.String())
	assert.Equal(t, 2, exit.ExitCode(), "%s", e.String())
	assert.Contains(t, e.String(), "memkv or redis")
}
