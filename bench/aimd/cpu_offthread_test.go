package aimdbench

import (
	"flag"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/bench/internal/cputime"
)

// burnOffThread spends at least ns of CPU time on a goroutine of its own,
// locked to its thread, and returns when it is done: work the caller waits
// for but does not do, as the GC's background marking of what a peer
// allocated is.
func burnOffThread(ns int64) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		t0, _ := cputime.Thread()
		for t, _ := cputime.Thread(); t-t0 < ns; t, _ = cputime.Thread() {
		}
	}()
	<-done
}

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
	bt := flag.Lookup("test.benchtime")
	old := bt.Value.String()
	require.NoError(t, bt.Value.Set("5x"))
	defer func() { require.NoError(t, bt.Value.Set(old)) }()
	const burn = 1_000_000 // ns per op
	res := testing.Benchmark(func(b *testing.B) {
		stop := reportCPU(b)
		for b.Loop() {
			burnOffThread(burn)
		}
		stop()
	})
	require.Equal(t, 5, res.N)
	require.GreaterOrEqual(t, res.Extra["cpu-ns/op"], 0.9*burn, "CPU per op, of %d ns burnt off the calling thread", burn)
}
