package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSyscallsPerfExited: syscalls.sh stopped each row's perf with kill
// -INT, which fails when perf has already exited (it could not attach, or
// the proxy it watched exited), and set -e then ended the script partway
// through its table, the rows after it never run. Every row must be shown,
// each whose perf had exited saying so, and the script exit 1. Here perf,
// go and nutcracker are stand-ins: perf exits at once, and the "gateway"
// and "twemproxy" are redis-servers on their ports.
func TestSyscallsPerfExited(t *testing.T) {
	bash := harnessBash(t, "redis-cli", "redis-benchmark", "redis-server", "timeout")
	if _, err := os.Stat("/proc/net/tcp"); err != nil {
		t.Skip("the stand-ins are checked through /proc (Linux)")
	}
	stubs := syscallsStubs(t, "exit 0\n")

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, "syscalls.sh")
	cmd.Env = append(os.Environ(), "N=200", "PATH="+stubs+string(os.PathListSeparator)+os.Getenv("PATH"))
	cmd.WaitDelay = 5 * time.Second
	var o bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &o
	err := cmd.Run()
	require.NoError(t, ctx.Err(), "syscalls.sh ran on: %s", o.String())
	out := o.String()
	for _, proxy := range []string{"twemproxy", "gateway", "gw-1P"} {
		assert.Regexp(t, `(?m)^`+proxy+` +ops/s +[0-9]`, out, "the %s row", proxy)
	}
	assert.Equal(t, 3, strings.Count(out, "perf exited before the row ended"), "%s", out)
	var exit *exec.ExitError
	require.True(t, errors.As(err, &exit), "syscalls.sh: %v: %s", err, out)
	assert.Equal(t, 1, exit.ExitCode(), "%s", out)
}
