package cputime

import (
	"runtime"
	"testing"
)

// ReportThread pins the calling goroutine to its OS thread, starts the thread's CPU
// clock and returns the func that, called after the benchmark loop, reports the
// thread's CPU time per op as cpu-ns/op and unpins. For single-goroutine benchmarks.
// Where the thread clock is unavailable it reports nothing.
func ReportThread(b *testing.B) (stop func()) {
	runtime.LockOSThread()
	start, ok := Thread()
	return func() {
		end, _ := Thread()
		runtime.UnlockOSThread()
		report(b, ok, end-start)
	}
}

// ReportProcess starts the process's CPU clock (user + system, all threads, GC
// included) and returns the func that, called after the benchmark loop, reports the
// process CPU time per op as cpu-ns/op. For RunParallel benchmarks, and for peers whose
// work happens on goroutines of their own. Where it is unavailable it reports nothing.
func ReportProcess(b *testing.B) (stop func()) {
	start, ok := Process()
	return func() {
		end, _ := Process()
		report(b, ok, end-start)
	}
}

func report(b *testing.B, ok bool, ns int64) {
	if ok && b.N > 0 {
		b.ReportMetric(float64(ns)/float64(b.N), "cpu-ns/op")
	}
}
