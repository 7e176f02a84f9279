// Package coalesce de-duplicates identical in-flight calls across callers: while one
// call for a key runs, every other caller asking for the same key waits for that
// call's result instead of sending its own request to the backend. In a gateway tier
// this is what turns "thousands of simultaneous reads of one hot key" into one
// backend fetch.
//
// It is golang.org/x/sync/singleflight with three changes a gateway needs:
//
//   - Context per caller. [Group.Do] and [Group.DoChan] take the caller's context; a
//     caller whose context ends leaves at once without disturbing the others. The
//     shared fn runs on a context of its own that keeps the first caller's values
//     (trace ids, tenant) but none of its cancellation; while fn runs, it is
//     cancelled only when every waiter has left. At that moment the key is removed
//     before the context is cancelled, so a later caller starts a fresh execution
//     rather than joining a cancelled one (the hazard tailscale's
//     TestDoChanContextNewCallerAfterCancel pins down). Once fn has returned, the
//     group releases that context (cancels it): fn must not use it afterwards.
//   - Panics are errors. A panic or runtime.Goexit in fn reaches every waiter as a
//     *[PanicError] (value and stack; [ErrGoexit] for Goexit) and never crashes the
//     process or strands a waiter.
//   - Generic keys and values, [Group.Stats], and a zero value ready to use.
//
// # When not to use it
//
// Coalescing shares one result among callers, so everything that changes the
// result (tenant, authorization scope, consistency level, the request's options)
// must be part of the key; two callers with different rights must never share a key.
// Every caller of one execution gets the same value: a slice, map or pointer in it
// is shared, so callers must treat it as read-only (or copy it before changing it).
// It does not cache: a caller arriving after an execution finished starts a new one
// (put a cache in front, such as tierkit's cache package, which builds on this one).
// It is not for writes or any call with side effects that each caller expects to
// happen once per call. And it does not bound concurrency across keys: a million
// distinct keys still run a million fns.
//
// # Concurrency model
//
// One mutex guards the key map; it is held only for map updates, never while fn
// runs or while waiters are woken. Each execution keeps its waiter count, its join
// count and a sealed flag in one atomic word: a caller joins with a CAS that fails
// once the execution is sealed, which finish does (one atomic Or) before it
// delivers the result, and which the last waiter to leave does in the same CAS that
// takes the count to zero. So a caller can never join an execution whose result is
// already being delivered or whose context is about to be cancelled; it starts a
// fresh one instead.
//
// The execution of the key that is hot at the moment (the last one a second caller
// joined) is also published in an atomic pointer: callers of that key join it with
// one load, a key comparison and the CAS, without the mutex or the map. Every other
// join takes the mutex. Waiters park on a done channel shared by the whole
// execution and are all woken by closing it: a joining caller allocates nothing. A
// caller whose context can be cancelled waits in a select on that channel and its
// own ctx.Done(); one whose context cannot (ctx.Done() == nil, such as
// context.Background()) just receives. When the first caller of [Group.Do] or
// [DoWith] has a context that cannot be cancelled, fn runs on that caller's
// goroutine with that context, since the execution can never be abandoned;
// otherwise fn runs on a new goroutine with the detached context. [Group.DoChan]
// always runs fn on a new goroutine (it returns at once): with the detached
// context, or with the first caller's own when that cannot be cancelled. [Group.Forget] removes a key's entry (and its hot pointer) so
// the next call starts fresh; callers already waiting keep their call.
//
// [DoWith] is Do for a static fn that takes an argument: the usual Do call with a
// func literal that captures the key allocates that closure on every call, joiners
// included (fn may run on another goroutine, so it escapes); DoWith passes the
// per-call data by value and a joining caller allocates nothing.
//
// A caller leaves early through its context: [Group.Do] returns ctx.Err() at once,
// and [Group.DoChan] delivers a [Result] whose Err is ctx.Err(), so a receive on its
// channel never outlasts the context. DoChan is also the non-blocking form of Do: it
// returns at once, and the caller selects on the channel with whatever else it
// waits for.
//
// An execution that ran inline and that nobody joined allocates nothing: its done
// channel is made only for the first caller that must wait, and its bookkeeping goes
// back to a small per-group free list. The key map gives back its table after a
// burst of distinct keys in flight at once: it is rebuilt at the size of what is
// left once that is a quarter of its peak or less (a map that peaked below 256
// keys is left as it is).
//
// # Panics and Goexit
//
// A panic in fn is recovered on the goroutine running it and every waiter gets a
// *[PanicError] with the value and the stack (errors.Is/As see through a panicked
// error). A runtime.Goexit in fn gives every waiter a *PanicError whose Goexit field
// is set and which matches [ErrGoexit]; if fn ran on the first caller's goroutine,
// that goroutine exits as Goexit demands (its Do does not return), the others still
// get the error.
//
// A nil fn is not run: [Group.Do], [DoWith] and [Group.DoChan] panic with
// "coalesce: nil fn" on the calling goroutine, before they start or join an
// execution, so the mistake shows at the call that made it and the other callers
// of the key are unaffected.
//
// # Stats
//
// [Group.Stats] returns a [Stats] snapshot: calls, executions, joins, cancelled
// waiters, abandoned executions, panics, forgets, and executions in flight;
// [Stats.JoinRatio] is the share of calls served by joining an execution.
//
// # Performance
//
// Measured against golang.org/x/sync/singleflight v0.25.0 in the same run (2-core
// VM shared with other work, its load not recorded, Go 1.26, 8 interleaved
// rounds, benchstat medians of process CPU time per call, which such load moves far
// less than wall-clock time; callgrind instruction counts, which it does not move
// at all, 3 runs each, raw in bench/coalesce/callgrind48.txt; the tables, the
// workloads and the designs tried are in the bench module, bench/coalesce/README.md):
//
//   - Hot key (64 goroutines per CPU on one key, fn yields 4 times so about 64 calls
//     share each execution): 0.84-0.86x singleflight's instructions per call, 0.86x
//     to 0.93x its CPU time per call at -cpu 1 and 0.88x to 0.92x at -cpu 2, 0
//     allocations per joining call. The target of 0.5x is NOT met, and
//     cannot be by a design whose waiters park: a joining call must stop its
//     goroutine until the execution ends, and the Go runtime alone spends 1,210
//     instructions per call to park and wake it in a profiled run (95% of the
//     least a parking design can do, which is 0.74-0.75x of singleflight's
//     instructions; bench/coalesce/callgrind_floor_profile48.txt); waiters that
//     yield instead of parking cost 1.7x singleflight's instructions. On this
//     loaded machine wall-clock ratios at -cpu 2 follow the CPU-time ratio.
//   - Distinct keys (no contention): 0.44x to 0.60x singleflight's CPU time per
//     call, 0 allocations per call against its 1.
//   - A fn closure built per call and capturing variables is heap-allocated (fn may run
//     on another goroutine): 1 allocation per call that singleflight's Do avoids.
//     [DoWith] with a static fn avoids it: 0 allocations per call.
//
// Reproduce with
//
//	cd bench && go test -run '^$' -bench . -cpu 1,2 -count 8 -benchmem ./coalesce/
package coalesce
