package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/internal/citest"
)

// TestHarnessBenchDeadProxy: compare.sh, ab.sh and syscalls.sh run their
// rows through harness.sh's bench, which must end at once, failing with a
// word on stderr, when the row's proxy process has exited: redis-benchmark
// itself, at a port nobody listens on, waits for ever (a proxy that died in
// one row hung the script at its next). Against a live proxy it is
// redis-benchmark.
func TestHarnessBenchDeadProxy(t *testing.T) {
	bash := harnessBash(t, "redis-cli", "redis-benchmark")
	in := startGateway(t, Config{TargetCPU: 1, MaxLimit: 100_000})
	_, port, _ := strings.Cut(in.Addr(), ":")
	run := func(script string) (stdout, stderr string, err error) {
		return runHarness(t, bash, script, 30*time.Second)
	}

	// The proxy has exited (a process of the script's, already reaped), and
	// nothing listens on its port: bench fails and says why.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	_, closed, _ := strings.Cut(ln.Addr().String(), ":")
	require.NoError(t, ln.Close())
	_, stderr, err := run(`true & p=$!; wait $p; bench "$p" -p ` + closed + ` -c 2 -n 10 -t get --csv`)
	require.Error(t, err)
	assert.Contains(t, stderr, "has exited")

	// A live proxy (this test's process serves the gateway): its CSV.
	stdout, stderr, err := run(`bench ` + strconv.Itoa(os.Getpid()) + ` -p ` + port + ` -c 2 -n 10 -t get --csv | bench_fields`)
	require.NoError(t, err, "%s", stderr)
	assert.Len(t, strings.Fields(stdout), 3, "ops/s, p50 and p99: %q", stdout)
}

// TestHarnessWaitPortDeadProcess: a proxy that exits at start (a
// configuration it rejects) makes wait_port fail at once with the end of
// its log, rather than wait out its 20 s for the port and then say only
// that it did not come up, the log gone with the scratch folder.
func TestHarnessWaitPortDeadProcess(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	for _, tool := range []string{"redis-cli", "redis-benchmark"} { // harness_init checks them
		if _, err := exec.LookPath(tool); err != nil {
			citest.SkipOrFailInCI(t, tool+" is needed: run scripts/setup.sh")
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	_, closed, _ := strings.Cut(ln.Addr().String(), ":")
	require.NoError(t, ln.Close())

	// Well under the 400 polls of at least 50 ms each that it waited.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, "-c", `source ./harness.sh; harness_init
{ echo "config: unknown field" >&2; exit 2; } 2>"$work/gw.log" & pids+=($!)
wait_port `+closed)
	var e bytes.Buffer
	cmd.Stderr = &e
	err = cmd.Run()
	require.NoError(t, ctx.Err(), "wait_port did not return: %s", e.String())
	require.Error(t, err)
	assert.Contains(t, e.String(), "has exited")
	assert.Contains(t, e.String(), "config: unknown field", "the process's log")
}
