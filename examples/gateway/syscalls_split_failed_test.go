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

// TestSyscallsSplitPassFailed: with SPLIT=1, syscalls.sh ran each proxy's
// second pass (under perf record) with `bench ... || true`, so a pass that
// redis-benchmark could not finish (the proxy died, an error reply, a
// timeout) printed its CPU split divided by N requests it never made, and
// the script exited 0. Such a pass must say so and the script exit 1. Here
// perf, go and nutcracker are stand-ins: the "gateway" and "twemproxy" are
// redis-servers on their ports, perf waits for its SIGINT (as perf does),
// and perf record ends the process it watches first, so that each stat row
// passes and each split pass fails.
func TestSyscallsSplitPassFailed(t *testing.T) {
	bash := harnessBash(t, "redis-cli", "redis-benchmark", "redis-server", "timeout")
	if _, err := os.Stat("/proc/net/tcp"); err != nil {
		t.Skip("the stand-ins are checked through /proc (Linux)")
	}
	stubs := syscallsStubs(t, `case $1 in
stat) [ "$2" = -e ] && exit 0 ;;
record) while [ $# -gt 0 ]; do case $1 in -p) kill "$2"; shift ;; esac; shift; done ;;
script) exit 0 ;;
esac
exec timeout 120 sleep 120
`)
	checkSyscallsRowsFail(t, bash, stubs, "the pass failed", "SPLIT=1")
}

// checkSyscallsRowsFail runs syscalls.sh (N=200, env added) with the
// stand-ins in stubs first on PATH, and checks that every proxy's row is
// shown, each saying want, and that the script exits 1.
func checkSyscallsRowsFail(t *testing.T, bash, stubs, want string, env ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, "syscalls.sh")
	cmd.Env = append(os.Environ(), "N=200", "PATH="+stubs+string(os.PathListSeparator)+os.Getenv("PATH"))
	cmd.Env = append(cmd.Env, env...)
	cmd.WaitDelay = 5 * time.Second
	var o bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &o
	err := cmd.Run()
	require.NoError(t, ctx.Err(), "syscalls.sh ran on: %s", o.String())
	out := o.String()
	for _, proxy := range []string{"twemproxy", "gateway", "gw-1P"} {
		assert.Regexp(t, `(?m)^`+proxy+` +ops/s +[0-9]`, out, "the %s row", proxy)
	}
	assert.Equal(t, 3, strings.Count(out, want), "%s", out)
	var exit *exec.ExitError
	require.True(t, errors.As(err, &exit), "syscalls.sh: %v: %s", err, out)
	assert.Equal(t, 1, exit.ExitCode(), "%s", out)
}

// syscallsStubs returns a folder of stand-ins for syscalls.sh: perf (the
// body given), nutcracker and the go that builds the "gateway", both
// redis-servers on the port their configuration or -addr names.
func syscallsStubs(t *testing.T, perf string) string {
	t.Helper()
	stubs := t.TempDir()
	write := func(name, body string) {
		require.NoError(t, os.WriteFile(filepath.Join(stubs, name), []byte("#!/bin/sh\n"+body), 0o755))
	}
	const server = `exec redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --loglevel warning >&2` + "\n"
	write("perf", perf)
	write("nutcracker", `conf=$2; port=$(sed -n 's/.*listen: 127.0.0.1://p' "$conf")`+"\n"+server)
	write("go", `out=$3; cat >"$out" <<'EOS'
#!/bin/sh
while [ $# -gt 0 ]; do case $1 in -addr) port=${2##*:}; shift ;; esac; shift; done
`+server+`EOS
chmod +x "$out"
`)
	return stubs
}
