package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
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
	stubs := t.TempDir()
	write := func(name, body string) {
		require.NoError(t, os.WriteFile(filepath.Join(stubs, name), []byte("#!/bin/sh\n"+body), 0o755))
	}
	const server = `exec redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --loglevel warning >&2` + "\n"
	write("perf", "exit 0\n")
	write("nutcracker", `conf=$2; port=$(sed -n 's/.*listen: 127.0.0.1://p' "$conf")`+"\n"+server)
	write("go", `out=$3; cat >"$out" <<'EOS'
#!/bin/sh
while [ $# -gt 0 ]; do case $1 in -addr) port=${2##*:}; shift ;; esac; shift; done
`+server+`EOS
chmod +x "$out"
`)

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
