package cputime

import (
	"flag"
	"fmt"
	"runtime"
	"testing"
)

// BurnOffThread spends at least ns of CPU time on a goroutine of its own,
// locked to its thread, and returns when it is done: work the caller waits
// for but does not do, as the GC's background marking of what an op
// allocated is.
func BurnOffThread(ns int64) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		t0, _ := Thread()
		for t, _ := Thread(); t-t0 < ns; t, _ = Thread() {
		}
	}()
	<-done
}

// OffThreadPerOp runs bench for 5 ops under testing.Benchmark, where bench
// calls burn once per op (burn is BurnOffThread of ns), and returns the
// cpu-ns/op bench reported: a benchmark whose reporter counts the CPU an op
// costs on other threads reads at least ns. For the tests of the bench
// packages whose peers allocate, whose garbage the GC marks elsewhere. It
// sets -test.benchtime for the run, so its caller must not run in parallel.
func OffThreadPerOp(ns int64, bench func(b *testing.B, burn func())) (float64, error) {
	bt := flag.Lookup("test.benchtime")
	if bt == nil {
		return 0, fmt.Errorf("cputime: no -test.benchtime flag (not in a test binary)")
	}
	old := bt.Value.String()
	if err := bt.Value.Set("5x"); err != nil {
		return 0, err
	}
	defer func() { _ = bt.Value.Set(old) }()
	res := testing.Benchmark(func(b *testing.B) { bench(b, func() { BurnOffThread(ns) }) })
	if res.N != 5 {
		return 0, fmt.Errorf("cputime: the benchmark ran %d ops, not 5", res.N)
	}
	return res.Extra["cpu-ns/op"], nil
}

// Loop is a benchmark body for OffThreadPerOp: op once per b.Loop iteration,
// timed by report (ReportProcess, ReportThread or a package's own reporter).
func Loop(report func(*testing.B) func()) func(b *testing.B, op func()) {
	return func(b *testing.B, op func()) {
		stop := report(b)
		for b.Loop() {
			op()
		}
		stop()
	}
}

// CheckCountsOffThread fails t unless report, a package's cpu-ns/op
// reporter, counts an op's CPU spent on other threads (1 ms burnt off the
// calling thread per op reads at least 0.9 ms). It skips where there is no
// CPU clock. The bench packages whose peers allocate call it to guard their
// choice of clock: a thread clock leaves out the GC's marking of the peers'
// garbage.
func CheckCountsOffThread(t *testing.T, report func(*testing.B) func()) {
	t.Helper()
	if _, ok := Process(); !ok {
		t.Skip("no CPU clock on this platform")
	}
	const burn = 1_000_000 // ns per op
	got, err := OffThreadPerOp(burn, Loop(report))
	if err != nil {
		t.Fatal(err)
	}
	if got < 0.9*burn {
		t.Fatalf("cpu-ns/op %.0f, of %d ns burnt off the calling thread per op", got, burn)
	}
}
