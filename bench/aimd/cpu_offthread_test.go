package aimdbench

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/bench/internal/cputime"
)

// TestReportCPUCountsWorkOffThread: the cpu-ns/op of this package's
// benchmarks (reportCPU) counts the CPU time an op costs on other threads.
// The go-concurrency-limits peers allocate on every decision and the GC
// marks that garbage on threads of its own; a thread clock left it out, so
// the peers' cpu-ns/op read lower than the CPU they cost. Each op here burns
// 1 ms of CPU on another goroutine.
func TestReportCPUCountsWorkOffThread(t *testing.T) {
	if _, ok := cputime.Process(); !ok {
		t.Skip("no CPU clock on this platform")
	}
	const burn = 1_000_000 // ns per op
	got, err := cputime.OffThreadPerOp(burn, cputime.Loop(reportCPU))
	require.NoError(t, err)
	require.GreaterOrEqual(t, got, 0.9*burn, "CPU per op, of %d ns burnt off the calling thread", burn)
}
