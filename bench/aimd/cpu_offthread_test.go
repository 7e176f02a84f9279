package aimdbench

import (
	"testing"

	"github.com/tierkit/tierkit/bench/internal/cputime"
)

// TestReportCPUCountsWorkOffThread: the cpu-ns/op of this package's
// benchmarks (reportCPU) counts the CPU time an op costs on other threads.
// The go-concurrency-limits peers allocate on every decision and the GC
// marks that garbage on threads of its own; a thread clock left it out, so
// the peers' cpu-ns/op read lower than the CPU they cost.
func TestReportCPUCountsWorkOffThread(t *testing.T) {
	cputime.CheckCountsOffThread(t, reportCPU)
}
