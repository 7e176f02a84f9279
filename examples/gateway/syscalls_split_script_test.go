package main

import (
	"os"
	"testing"
)

// TestSyscallsSplitNoSamples: with SPLIT=1, a perf record that could not
// attach (or whose proxy had exited) writes no perf.data, and perf script
// then fails on the missing file (as perf does, exit 255). Under set -e and
// pipefail that pipeline ended syscalls.sh after the first proxy's pass:
// the rows after it never ran and no summary said why. Every row must be
// shown, each saying its samples are missing, and the script exit 1.
func TestSyscallsSplitNoSamples(t *testing.T) {
	bash := harnessBash(t, "redis-cli", "redis-benchmark", "redis-server", "timeout")
	if _, err := os.Stat("/proc/net/tcp"); err != nil {
		t.Skip("the stand-ins are checked through /proc (Linux)")
	}
	stubs := syscallsStubs(t, `case $1 in
stat) [ "$2" = -e ] && exit 0 ;;
record) exit 1 ;;
script)
	while [ $# -gt 0 ]; do case $1 in -i) f=$2; shift ;; esac; shift; done
	[ -s "$f" ] || { echo "failed to open $f: No such file or directory" >&2; exit 255; }
	exit 0 ;;
esac
exec timeout 120 sleep 120
`)
	checkSyscallsRowsFail(t, bash, stubs, "perf script could not read the samples", "SPLIT=1")
}
