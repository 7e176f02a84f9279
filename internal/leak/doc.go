// Package leak checks that a test leaves no goroutine behind.
//
// Tests that run inside a testing/synctest bubble get this for free: synctest.Test
// fails when a goroutine of the bubble is still blocked at the end. Check is for the
// tests that cannot run in a bubble (real sockets, real time, benchmarks of
// contention): it snapshots the goroutines alive when it is called and, at cleanup,
// fails the test if goroutines started since then are still alive.
//
// [Main] does the same for a whole package from its TestMain, as each
// top-level package of the root module does (so do internal/corelat and
// several examples packages); [Check] does it for one test, and [Snapshot]
// with [Leaked] at a point of the test's choosing. It is internal: test
// support shared by the root and examples modules, not API, and free to
// change.
//
// # When not to use it
//
// Check not in a test that runs in parallel with others of its package
// (t.Parallel): their goroutines would count as its own (Main, which checks
// once all have ended, has no such limit). Check is not needed in a synctest
// bubble, which does this check itself. Neither where a goroutine is meant to
// outlive the test: started after the snapshot, it is reported. Not in
// production code: each poll reads the stack of every goroutine.
//
// # Concurrency
//
// It starts no goroutine. Check's cleanup and Main (once the tests passed)
// poll, with a backoff of up to 10 ms, for at most 5 s, until the goroutines
// started since the snapshot have ended: those on their way out (a Close that
// returned after signalling its workers) are not reported. Snapshot and
// Leaked may be called from any goroutine; call Check from the test's
// goroutine, first, before anything that starts goroutines.
//
// # Stats
//
// No counters. What it reports is the stacks of the goroutines still alive:
// through t.Errorf for Check (the test fails), on standard error for Main
// (which then returns exit code 1), and as the value of Leaked.
package leak
