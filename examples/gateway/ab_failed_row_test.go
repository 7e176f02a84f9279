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

// TestABFailedRowExitStatus: ab.sh reports a row redis-benchmark could not
// finish as "failed" and goes on to the next, but it then exited 0, so a
// run whose rows all failed passed for whatever ran it (a loop collecting
// raw files for HISTORY.md). It must exit non-zero after its table. The
// "gateway" binary here is a redis-server (on the port of ab.sh's -addr)
// whose GET is renamed away: the SET pass passes, every GET row fails.
func TestABFailedRowExitStatus(t *testing.T) {
	bash := harnessBash(t, "redis-cli", "redis-benchmark", "redis-server")
	if _, err := os.Stat("/proc/net/tcp"); err != nil {
		t.Skip("the stand-in binary is checked through /proc (Linux)")
	}
	stub := func(name, extra string) string {
		p := filepath.Join(t.TempDir(), name)
		require.NoError(t, os.WriteFile(p, []byte(`#!/bin/sh
while [ $# -gt 0 ]; do case $1 in -addr) addr=$2; shift ;; esac; shift; done
exec redis-server --port "${addr##*:}" --bind 127.0.0.1 --save '' --appendonly no `+extra+` >&2
`), 0o755))
		return p
	}
	run := func(bin string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, bash, "ab.sh", "memkv", "200", "2", "1", bin)
		cmd.Env = append(os.Environ(), "WL=get")
		var o bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &o
		err := cmd.Run()
		require.NoError(t, ctx.Err(), "ab.sh ran on: %s", o.String())
		return o.String(), err
	}

	out, err := run(stub("noget", "--rename-command get ''"))
	assert.Contains(t, out, "failed:")
	var exit *exec.ExitError
	require.True(t, errors.As(err, &exit), "ab.sh with a failed row: %v: %s", err, out)
	assert.Equal(t, 1, exit.ExitCode(), "%s", out)

	out, err = run(stub("plain", ""))
	require.NoError(t, err, "%s", out)
	assert.NotContains(t, out, "failed")
}
