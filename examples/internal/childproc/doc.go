// Package childproc starts the helper processes of the examples' tests
// (redis-server shards, gateways, a re-run test binary) so that they do not
// outlive the test binary that started them.
//
// A test stops what it started in a t.Cleanup, but a test binary that dies
// runs no cleanup: go test's -timeout panics and exits (scripts/test.sh
// relies on it to end a hang with a goroutine dump), a panic in one test ends
// every other test too, and os.Exit skips them. A redis-server started with
// cmd.Start alone then runs on, reparented, holding its port and memory until
// someone kills it by hand.
//
// [Start] is cmd.Start with Linux's parent-death signal (SIGKILL) set, the
// other SysProcAttr fields kept. Besides the tests of examples/gateway (and
// its evfloor command), controlplane and client and package redisproc, the
// cluster command starts its gateways with it. It is internal: test and demo plumbing of the
// examples module, not API of the kit.
//
// # When not to use it
//
// Not for a child meant to outlive its parent (a daemon, a process handed
// over): it is killed as soon as this process exits, cleanly or not. Not as
// a guarantee elsewhere: only Linux has the signal, and on other systems
// Start is plain cmd.Start, whose child outlives a test binary that dies
// without its cleanups. It does not stop or reap the child: the caller still
// calls Wait, and kills what it no longer needs.
//
// # Concurrency
//
// On Linux, the package starts one goroutine at init, in every binary that
// imports it, locked to its OS thread for the life of the process: the
// kernel sends the signal when the thread that started the child exits, not
// the process, so every child is started from that one thread. Start hands
// the command to it and waits for cmd.Start's result; it is safe for
// concurrent use, and concurrent calls start their children one at a time.
// Starting that goroutine at init makes it predate any test's goroutine leak
// check. On other systems it starts no goroutine.
//
// # Stats
//
// None.
package childproc
