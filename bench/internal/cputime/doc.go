// Package cputime measures the CPU time a benchmark consumes, so that results taken on
// a machine shared with other work can be compared: wall-clock ns/op counts the time a
// benchmark waits for a core, CPU time per op does not. The comparisons of this module
// report both, as "ns/op" and "cpu-ns/op": through this package in bench/aimd, cache,
// coalesce, hashring, memkv, shed and txn, while bench/batcher reads getrusage itself
// (bench/cache's BenchmarkStringKeysMany and BenchmarkThroughputRistrettoDrops report
// no CPU time).
//
// [ReportThread] counts the calling thread's CPU clock, for single-goroutine benchmarks
// that allocate nothing (none of this module's: bench/hashring's serial lookups used it
// until a review found that three of their peers allocate on every lookup); [ReportProcess]
// counts the whole process's, for RunParallel benchmarks, peers with goroutines of their
// own, and ops that allocate, whose garbage the GC marks on other threads (bench/aimd and
// shed, whose go-concurrency-limits peers allocate on every decision, and bench/hashring). [Thread]
// and [Process] read the clocks. It is internal: measuring plumbing shared by the bench
// module's packages, not API.
//
// # When not to use it
//
// Not with ReportThread where the work moves to other goroutines (a peer's workers, the
// background GC): only the calling thread's CPU time is counted, so that work is left
// out; use ReportProcess. ReportProcess counts everything the process does over the
// loop, the GC and any goroutine still running from an earlier benchmark included.
// Not off Linux: Thread and Process report ok = false there and the Report funcs report
// nothing (ns/op alone then). Thread reads clock_gettime's thread CPU clock (in ns),
// Process getrusage(RUSAGE_SELF) (user + system, in microseconds).
//
// # Concurrency
//
// It keeps no state and starts no goroutine. ReportThread locks the calling goroutine
// to its thread until its stop func runs: call both from the same goroutine (the
// benchmark's), or the end is read on another thread's clock and the goroutine stays
// locked. ReportProcess and its stop may run on any goroutine. Thread and Process are
// safe for concurrent use.
//
// # Stats
//
// The Report funcs report one benchmark metric, cpu-ns/op: CPU time over the loop
// divided by b.N, nothing when the clock is unavailable or b.N is 0.
package cputime
