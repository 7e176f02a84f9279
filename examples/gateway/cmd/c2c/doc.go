// Command c2c prints the time a cache line takes to go from one core of this
// machine to another and back, as a Go program with two goroutines sees it
// now (the median of 5 rounds of 4,000 round trips, measured by
// internal/corelat).
//
//	cd examples && go run ./gateway/cmd/c2c
//
// It takes no flags and no arguments: any argument is a usage error (exit
// 2), and -h prints the usage and exits 0.
//
// compare.sh prints it before and after its rows. On the 2-core VMs the
// comparisons run on it is not a constant of the host: one VM moved between
// about 60, 200 and 1,000 ns within minutes, as the hypervisor placed its two
// virtual CPUs closer or further apart, and a proxy whose goroutines hand
// requests to each other pays it on every hand-off across the cores, where a
// one-thread event loop does not. examples/gateway/README.md ("Against
// twemproxy") reads the rows with it.
//
// # When not to use it
//
// It is one reading of one figure at one moment, to set beside a
// compare.sh run, not a benchmark of the machine: the figure moves with the
// scheduler and the hypervisor, and another reading minutes later may differ
// several times over. It measures nothing on a machine or in a process with
// fewer than 2 Ps (GOMAXPROCS), and it does not pin threads to cores, so it
// says which two cores only as far as the scheduler placed its goroutines.
//
// # Concurrency
//
// Each round starts one goroutine that echoes a counter back to main's
// goroutine through two atomic words on cache lines of their own; both spin.
// The round ends when the last pass is echoed, or is abandoned after a
// second (the other goroutine got no core), and its goroutine stops with it.
// It handles no signals; it ends by itself after the 5 rounds.
//
// # Stats
//
// One line on standard output, "core-to-core round trip: N ns" (the median
// round's time per round trip). When it cannot measure (GOMAXPROCS below 2,
// or a round abandoned), it prints an error on standard error and exits 1,
// and compare.sh writes "not measured" instead.
package main
