// Package corelat measures how long a cache line takes to go from one core to
// another and back, as this process sees it now: two goroutines pass a counter
// back and forth through two words on lines of their own, and the round trip is
// the time one pass takes.
//
// On the 2-core VMs these benchmarks run on, that time is not a constant of the
// host: the same VM measured about 200 ns for minutes, then about 1,000 ns
// (the hypervisor placing the two virtual CPUs on cores further apart), and
// back. Benchmarks whose goroutines share written data (a cache's policy and
// locks under a write mix) slow down with it, and a single lock that keeps one
// core working at a time does not, so a comparison between the two kinds is
// only read with the round trip it was measured at.
//
// [RoundTrip] returns the median of several rounds; [Report] measures it
// before and after a benchmark's timed loop. Its users are bench/cache's
// throughput benchmarks (Report), and examples/overload's report and the
// examples/gateway/cmd/c2c command (RoundTrip). It is internal to the
// repository: a measuring aid of its benchmarks and demos, not API.
//
// # When not to use it
//
// Not as a figure of the machine: it is what this process sees at the time of
// the call, and it moves. Not while the process does other work it cares
// about: a round keeps two cores spinning. Not with GOMAXPROCS below 2 or on
// a machine whose cores are busy: RoundTrip then reports false rather than a
// time (a round whose second goroutine gets no core within about a second is
// abandoned). The package imports testing (for Report), which a command that
// imports it links in.
//
// # Concurrency
//
// Each round starts one goroutine, the echoing one, and stops it before the
// round returns, whether the round completed or was abandoned: RoundTrip
// leaves no goroutine behind. It holds no shared state, but calls that
// overlap compete for the cores they measure and read each other's traffic,
// so run one at a time. Report and the func it returns call b.StopTimer,
// b.StartTimer and b.ReportMetric: call them from the benchmark's goroutine.
//
// # Stats
//
// No counters. RoundTrip returns the median round trip; Report reports it as
// the benchmark metrics c2c-ns (before the timed loop) and c2c-end-ns (after
// it), and nothing when either measurement fails or b.N is below 1,000.
package corelat
