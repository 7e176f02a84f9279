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

// TestCompareRefusesNonNumericCache: compare.sh tested CACHE with -gt, which
// on a value that is not a number (CACHE=50k) only warns "integer expression
// expected" and is false: the run went on without the gw+cache rows it was
// asked for. It must stop, before building or starting anything, as ROWS does.
func TestCompareRefusesNonNumericCache(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	for _, cache := range []string{"50k", "-1", " ", "5e4"} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cmd := exec.CommandContext(ctx, bash, "compare.sh")
		cmd.Env = append(os.Environ(), "CACHE="+cache, "PIPES=1", "N=100", "PATH="+onlyDirname(t))
		var e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &e, &e
		err = cmd.Run()
		require.NoError(t, ctx.Err(), "compare.sh ran on: %s", e.String())
		cancel()
		var exit *exec.ExitError
		require.True(t, errors.As(err, &exit), "compare.sh: %v: %s", err, e.String())
		assert.Equal(t, 2, exit.ExitCode(), "CACHE=%q: %s", cache, e.String())
		assert.Contains(t, e.String(), "CACHE", "CACHE=%q", cache)
	}
}
