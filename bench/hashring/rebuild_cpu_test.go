package hashringbench

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/bench/internal/cputime"
)

// TestRebuildLoopCountsCPUOffItsThread: BenchmarkBuild's and BenchmarkLeave's
// cpu-ns/op counts the CPU time an op costs on other threads, as the GC's
// work for the tables a build allocates runs there. Each op here burns 1 ms
// of CPU on another goroutine: the calling thread's clock saw almost none of
// it.
func TestRebuildLoopCountsCPUOffItsThread(t *testing.T) {
	if _, ok := cputime.Process(); !ok {
		t.Skip("no CPU clock on this platform")
	}
	const burn = 1_000_000 // ns per op
	got, err := cputime.OffThreadPerOp(burn, rebuildLoop)
	require.NoError(t, err)
	require.GreaterOrEqual(t, got, 0.9*burn, "CPU per op, of %d ns burnt off the calling thread", burn)
}
