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
//     (trace ids, tenant) but none of its cancellation, and is cancelled only when
//     every waiter has left. At that moment the key is removed before the context
//     is cancelled, so a later caller starts a fresh execution rather than joining
//     a cancelled one (the hazard tailscale's TestDoChanContextNewCallerAfterCancel
//     pins down).
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
// It does not cache: a caller arriving after an execution finished starts a new one
// (put a cache in front, such as tierkit's cache package, which builds on this one).
// It is not for writes or any call with side effects that each caller expects to
// happen once per call. And it does not bound concurrency across keys: a million
// distinct keys still run a million fns.
//
// # Concurrency model
//
// One mutex guards the key map and the waiter counts; it is held only for map and
// counter updates, never while fn runs or while waiters are woken. Waiters park on
// a done channel shared by the whole execution: a joining caller allocates nothing.
// A caller whose context can be cancelled waits in a select on that channel and its
// own ctx.Done(); one whose context cannot (ctx.Done() == nil, such as
// context.Background()) just receives. When the first caller's context cannot be
// cancelled, fn runs on that caller's goroutine with that context, since the
// execution can never be abandoned; otherwise fn runs on a new goroutine with the
// detached context. [Group.Forget] removes a key's entry so the next call starts
// fresh; callers already waiting keep their call.
//
// # Stats
//
// [Group.Stats] returns a [Stats] snapshot: calls, executions, joins, cancelled
// waiters, abandoned executions, panics, forgets, and executions in flight;
// [Stats.JoinRatio] is the share of calls that coalescing saved.
package coalesce
