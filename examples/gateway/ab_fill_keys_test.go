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

// TestABFillsRedisKeys: on Redis, ab.sh set the keys with a SET pass of
// 200,000 random SETs through each binary in turn, on the same shards: the
// GET and MGET rows found about 86% of the keys with one binary and 98%
// with two (not the 86% its comment said), so what a row read depended on
// how many binaries ran, and differed from compare.sh, whose rows find
// every key. Every key must be on every shard before the binaries start
// (fill_keys). The "binaries" here write the DBSIZE of the shards of their
// -redis as they start, then serve as redis-servers on their -addr port.
func TestABFillsRedisKeys(t *testing.T) {
	bash := harnessBash(t, "redis-cli", "redis-benchmark", "redis-server", "timeout")
	if _, err := os.Stat("/proc/net/tcp"); err != nil {
		t.Skip("the stand-in binary is checked through /proc (Linux)")
	}
	dir := t.TempDir()
	seen := filepath.Join(dir, "seen")
	var bins []string
	for _, name := range []string{"a", "b"} {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(`#!/bin/sh
while [ $# -gt 0 ]; do case $1 in -addr) addr=$2; shift ;; -redis) shards=$(echo "$2" | tr , ' '); shift ;; esac; shift; done
for s in $shards; do echo "`+name+` $(redis-cli -p "${s##*:}" dbsize)" >>"$SEEN"; done
exec redis-server --port "${addr##*:}" --bind 127.0.0.1 --save '' --appendonly no >&2
`), 0o755))
		bins = append(bins, p)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, append([]string{"ab.sh", "redis", "200", "2", "1"}, bins...)...)
	cmd.Env = append(os.Environ(), "WL=get", "SEEN="+seen)
	cmd.WaitDelay = 5 * time.Second
	var o bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &o
	err := cmd.Run()
	require.NoError(t, ctx.Err(), "ab.sh ran on: %s", o.String())
	require.NoError(t, err, "%s", o.String())
	got, err := os.ReadFile(seen)
	require.NoError(t, err, "no binary recorded its shards: %s", o.String())
	for _, name := range []string{"a", "b"} {
		assert.Equal(t, 2, strings.Count(string(got), name+" 100000\n"),
			"binary %s's two shards each hold the 100k keys as it starts: %s", name, got)
	}
}
