// Command tour shows each finished tierkit package at work, with figures it measures
// as it runs. Every count, ratio, duration and rate it prints comes from a
// counter, a clock or the package's Stats during the run; the set-up a line
// names (a limit of 1000 B, 200 hosts, 10,000 readers, a 2 s bound, the
// load levels of a ramp) is the section's own configuration, printed as
// given. Timings vary from run to run, and so do counts that depend on how
// goroutines interleave or on a per-process hash seed (the cache's
// evictions); the figures of the shed drain, the aimd control loop, the
// balancer and failover runs, on explicit clocks and seeded sources, do not.
// It needs no set-up:
//
//	go run ./examples/tour            # every section
//	go run ./examples/tour coalesce   # one section
//	go run ./examples/tour -h         # the sections, in order
//
// It takes no flags: its arguments name sections (coalesce, batcher, hashring,
// cache, shed, aimd, memkv, txn, rollout, balancer, failover, control), which
// run in tour order whatever order they are given in. An argument that names
// no section is a usage error (exit 2). The repository's README.md lists it
// among the examples.
//
// Each package adds its section in a file of its own (coalesce.go, batcher.go, ...)
// that appends to sections from an init function; main runs them in order.
//
// # When not to use it
//
// It is a demonstration, not a benchmark: its timings come from one short run
// on whatever else the machine is doing, and its sections are sized to finish
// in about two seconds in all. For throughput figures see bench/ and
// examples/gateway's README; for the policies at fleet scale, examples/sim and
// examples/overload. It serves nothing and needs no network beyond the control
// section's test server on loopback.
//
// # Concurrency
//
// main runs the sections one after the other. A section may start goroutines
// of its own (concurrent readers of one key, batch submitters, writers of
// memkv and txn, a cache fill that races an invalidation) and the package
// goroutines they drive (batch flushes, an httptest server for control), and
// ends them before it returns; the package's tests fail when one is left
// behind. Where a section waits for a package to act (coalesce, batcher), the
// wait is bounded at 5 s, so a package that never does it fails the section
// instead of hanging the tour. It handles no signals and stops after the last
// section, or at the first that fails.
//
// # Stats
//
// Each section prints a header ("== name: title"), its lines, and how long
// it took; its outcomes ("-> 1 backend fetch", "none queued") are checked
// before they are printed, so a package that stops doing what a line says
// fails the tour (its error on standard error, exit 1) instead of being
// described wrongly. The tour keeps no counters of its own beyond those.
package main
