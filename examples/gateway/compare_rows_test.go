package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// onlyDirname returns a PATH holding dirname alone (the scripts find their
// folder with it): a script that goes past its argument checks then stops at
// its first tool (nutcracker, redis-cli, go) instead of starting servers.
func onlyDirname(t *testing.T) string {
	t.Helper()
	dirname, err := exec.LookPath("dirname")
	if err != nil {
		t.Skip("no dirname")
	}
	dir := t.TempDir()
	require.NoError(t, os.Symlink(dirname, filepath.Join(dir, "dirname")))
	return dir
}

// TestCompareRefusesUnknownRow: a ROWS name compare.sh has no row for (mget,
// as ab.sh calls the 10-key MGET) ran with the arguments of the row before it
// and printed that row's figures under the unknown name. It must stop, before
// building or starting anything, and name the rows it knows.
func TestCompareRefusesUnknownRow(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, "compare.sh")
	cmd.Env = append(os.Environ(), "ROWS=get mget", "PIPES=1", "N=100", "PATH="+onlyDirname(t))
	var e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &e, &e
	err = cmd.Run()
	require.NoError(t, ctx.Err(), "compare.sh ran on: %s", e.String())
	var exit *exec.ExitError
	require.True(t, errors.As(err, &exit), "compare.sh: %v: %s", err, e.String())
	assert.Equal(t, 2, exit.ExitCode(), "%s", e.String())
	assert.Contains(t, e.String(), "not mget")
}
