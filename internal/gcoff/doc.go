// Package gcoff sets up, for a test, the memory setting Go's GC guide gives a
// process with a memory budget: GOGC=off and a Go memory limit. Under it the
// runtime keeps the heap it freed mapped up to 95% of the limit, which is what
// a memory guard's reading must see through (aimd's default reading, and the
// gateway's guard built on it).
//
// Not for production code: it changes process-wide settings until the test
// ends, so the tests that use it must not run in parallel with others that
// measure memory. Nothing here starts a goroutine; it has no stats.
package gcoff
