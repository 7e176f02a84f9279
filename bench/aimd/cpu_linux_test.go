//go:build linux

package aimdbench

import (
	"runtime"
	"syscall"
	"testing"
	"unsafe"
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

// threadCPU reads the calling thread's CPU clock,
// clock_gettime(CLOCK_THREAD_CPUTIME_ID), which has nanosecond precision
// (getrusage(RUSAGE_THREAD) advances in scheduler ticks).
func threadCPU() int64 {
	const clockThreadCPUTimeID = 3
	var ts syscall.Timespec
	if _, _, e := syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return 0
	}
	return ts.Nano()
}
