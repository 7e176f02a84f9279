package main

import (
	"os"
	"testing"
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
	checkSyscallsRowsFail(t, bash, stubs, "perf exited before the row ended")
}
