package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/internal/citest"
)

// TestScriptsFindSbinTools: Debian installs nutcracker as
// /usr/sbin/nutcracker, and a user other than root has no /usr/sbin in
// PATH: syscalls.sh said "nutcracker is not installed" right after apt-get
// installed it, and compare.sh, run through sudo's install, started no
// twemproxy ("command not found") and failed at its port. The scripts look
// in the sbin folders too. Here perf is a stand-in whose tracepoints are
// not readable, the check after nutcracker's, so the script stops there.
func TestScriptsFindSbinTools(t *testing.T) {
	bash := harnessBash(t)
	if _, err := os.Stat("/usr/sbin/nutcracker"); err != nil {
		citest.SkipOrFailInCI(t, "needs Debian's /usr/sbin/nutcracker: run scripts/setup.sh nutcracker")
	}
	stubs := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(stubs, "perf"), []byte("#!/bin/sh\nexit 1\n"), 0o755))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, "syscalls.sh")
	cmd.Env = append(os.Environ(), "PATH="+stubs+":/usr/local/bin:/usr/bin:/bin")
	var o bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &o
	err := cmd.Run()
	require.NoError(t, ctx.Err(), "syscalls.sh ran on: %s", o.String())
	require.Error(t, err, "%s", o.String())
	assert.NotContains(t, o.String(), "nutcracker is not installed")
	assert.Contains(t, o.String(), "perf cannot read the syscalls tracepoints")
}
