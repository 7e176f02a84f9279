//go:build linux

package aimdbench

import (
	"runtime"
	"syscall"
	"testing"
)

// cpuNs starts measuring the CPU time of the benchmark's own thread and returns
// the func that reports it as cpu-ns/op. On a machine shared with other work,
// wall time per op includes the time the benchmark was descheduled; the thread's
// CPU time does not, so it is the steadier figure to compare implementations by.
// Single-goroutine benchmarks only.
func cpuNs(b *testing.B) func() {
	runtime.LockOSThread()
	start := threadCPU()
	return func() {
		d := threadCPU() - start
		runtime.UnlockOSThread()
		b.ReportMetric(float64(d)/float64(b.N), "cpu-ns/op")
	}
}

func threadCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_THREAD, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
