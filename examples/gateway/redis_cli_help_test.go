package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRedisCLIHelpFromItsOwnTable: redis-cli's help (and its hints) come
// from COMMAND DOCS, and from its own table when the server refuses COMMAND
// DOCS, as Redis before 7 does. The gateway has no command docs, so it
// refuses it: before, it answered an empty map, and redis-cli, reading it as
// the server's complete docs, had help for no command at all ("help get"
// printed nothing), where the README said clients use their own tables.
func TestRedisCLIHelpFromItsOwnTable(t *testing.T) {
	cli, err := exec.LookPath("redis-cli")
	require.NoError(t, err, "redis-cli is needed: run scripts/setup.sh")
	in := startGateway(t, Config{HTTPAddr: "-"})
	host, port, _ := strings.Cut(in.Addr(), ":")
	cmd := exec.Command(cli, "-h", host, "-p", port) // its REPL, reading stdin
	cmd.Stdin = strings.NewReader("help get\n")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "Get the value of a key", "redis-cli's help for GET")
}
