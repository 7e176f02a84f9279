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
	out := scriptRefuses(t, []string{"ROWS=get mget", "PIPES=1", "N=100"}, "compare.sh")
	assert.Contains(t, out, "not mget")
}

// scriptRefuses runs one of this folder's scripts with args, env added to
// the test's and a PATH of onlyDirname, and requires it to stop within 30 s
// with exit status 2 (a usage or argument error); it returns what the
// script printed.
func scriptRefuses(t *testing.T, env []string, script string, args ...string) string {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, append([]string{script}, args...)...)
	cmd.Env = append(append(os.Environ(), env...), "PATH="+onlyDirname(t))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	require.NoError(t, ctx.Err(), "%s ran on: %s", script, out.String())
	var exit *exec.ExitError
	require.True(t, errors.As(err, &exit), "%s %q: %v: %s", script, args, err, out.String())
	require.Equal(t, 2, exit.ExitCode(), "%s %q: %s", script, args, out.String())
	return out.String()
}
