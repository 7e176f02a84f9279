package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSyscallsFillsKeys: syscalls.sh ran its GET rows on shards nothing
// had written, so every proxy answered every GET null (5 bytes, not the
// 64-byte values compare.sh's GET rows read), and with WL=set twemproxy's
// row, the first, created the keys the gateways' rows then overwrote. As
// compare.sh does, every key of the rows' keyspace must be on every shard
// before any proxy starts (fill_keys). Here perf, go and nutcracker are
// stand-ins (syscallsStubs): each "proxy" writes the DBSIZE of the shards
// it was given as it starts.
func TestSyscallsFillsKeys(t *testing.T) {
	bash := harnessBash(t, "redis-cli", "redis-benchmark", "redis-server", "timeout")
	if _, err := os.Stat("/proc/net/tcp"); err != nil {
		t.Skip("the stand-ins are checked through /proc (Linux)")
	}
	stubs := syscallsStubs(t, `case $1 in
stat) [ "$2" = -e ] && exit 0 ;;
esac
exec timeout 120 sleep 120
`)
	seen := filepath.Join(t.TempDir(), "seen")
	// Each stand-in first writes "NAME DBSIZE" per shard, then serves as
	// syscallsStubs's does.
	const record = `for s in $shards; do echo "$name $(redis-cli -p "${s##*:}" dbsize)" >>"$SEEN"; done` + "\n"
	const server = `exec redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --loglevel warning >&2` + "\n"
	write := func(name, body string) {
		require.NoError(t, os.WriteFile(filepath.Join(stubs, name), []byte("#!/bin/sh\n"+body), 0o755))
	}
	write("nutcracker", `conf=$2; port=$(sed -n 's/.*listen: 127.0.0.1://p' "$conf")
name=twemproxy; shards=$(sed -n 's/^ *- \(127.0.0.1:[0-9]*\):1$/\1/p' "$conf")
`+record+server)
	write("go", `out=$3; cat >"$out" <<'EOS'
#!/bin/sh
name=gateway
while [ $# -gt 0 ]; do case $1 in -addr) port=${2##*:}; shift ;; -redis) shards=$(echo "$2" | tr , ' '); shift ;; -procs) name=gw-1P ;; esac; shift; done
`+record+server+`EOS
chmod +x "$out"
`)

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, "syscalls.sh")
	cmd.Env = append(os.Environ(), "N=200", "SEEN="+seen, "PATH="+stubs+string(os.PathListSeparator)+os.Getenv("PATH"))
	cmd.WaitDelay = 5 * time.Second
	var o bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &o
	err := cmd.Run()
	require.NoError(t, ctx.Err(), "syscalls.sh ran on: %s", o.String())
	require.NoError(t, err, "%s", o.String())
	got, err := os.ReadFile(seen)
	require.NoError(t, err, "no stand-in recorded its shards: %s", o.String())
	for _, proxy := range []string{"twemproxy", "gateway", "gw-1P"} {
		assert.Equal(t, 2, strings.Count(string(got), proxy+" 100000\n"),
			"%s's two shards each hold the 100k keys as it starts: %s", proxy, got)
	}
}
