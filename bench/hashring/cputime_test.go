package hashringbench

import (
	"runtime"
	"syscall"
	"testing"
	"time"
)

// The machine these benchmarks run on is shared: with more runnable threads than
// cores, ns/op (wall time) counts the time a benchmark waits for a core. cpu-ns/op
// counts only the CPU the benchmark's own thread (serial) or process (parallel)
// consumed per operation, which is what an implementation costs. Both are reported.

// threadCPU returns the CPU time consumed by the calling OS thread.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// processCPU returns the CPU time consumed by the whole process.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// serialCPU pins the benchmark goroutine to its thread and returns a func that
// reports cpu-ns/op when the loop is done.
func serialCPU(b *testing.B) func() {
	runtime.LockOSThread()
	start := threadCPU()
	return func() {
		b.ReportMetric(float64(threadCPU()-start)/float64(b.N), "cpu-ns/op")
		runtime.UnlockOSThread()
	}
}

// parallelCPU returns a func that reports process cpu-ns/op after RunParallel.
func parallelCPU(b *testing.B) func() {
	start := processCPU()
	return func() {
		b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
	}
}
