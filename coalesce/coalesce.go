package coalesce

import (
	"context"
	"sync"
	"sync/atomic"
)

// Group de-duplicates concurrent calls that share a key: while a call for a key is
// in flight, later calls for that key wait for its result instead of running fn
// again.
//
// The zero value is ready to use. A Group must not be copied after first use. All
// methods are safe for concurrent use.
//
// Everything that changes the result of fn, including the tenant and the
// authorization scope of the caller, belongs in K: callers that share a key share
// a result. A key that is not equal to itself (a float NaN, or a struct or
// interface holding one) matches no other call, as in a map: every call with
// such a key runs fn. With an interface K, a key whose dynamic type is not
// comparable panics in the calling goroutine, as a map would; the Group stays
// usable.
type Group[K comparable, V any] struct {
	// hot is the execution that callers of its key join without the lock: the
	// last one that a second caller joined, until it is sealed. Written under mu.
	hot atomic.Pointer[call[K, V]]

	mu   sync.Mutex // protects m, peak, free, and the fields of calls marked as guarded by it
	m    map[K]*call[K, V]
	peak int           // the most keys m held since it was made: see shrinkLocked
	free []*call[K, V] // finished calls nobody else saw, for reuse: see finish

	// Calls is not counted: it is executions + joins + onEntry.
	executions atomic.Uint64
	completed  atomic.Uint64 // fn returned, panicked or exited: InFlight = executions - completed
	joins      atomic.Uint64
	onEntry    atomic.Uint64 // calls whose ctx was done before they called
	cancelled  atomic.Uint64
	abandoned  atomic.Uint64
	panics     atomic.Uint64
	forgets    atomic.Uint64
}

// Result is what [Group.DoChan] delivers.
type Result[V any] struct {
	// Val is fn's value (the zero value when Err is set by a cancelled wait).
	Val V
	// Err is fn's error, a *[PanicError], or the caller's ctx.Err() when its
	// context ended first.
	Err error
	// Shared reports whether the execution served more than one caller, that is,
	// whether other callers joined it before it finished. It is false when Err is
	// the caller's own ctx.Err().
	Shared bool
}

// Do runs fn once for concurrent callers with the same key and returns its result
// to each of them.
//
// The first caller for a key starts an execution; callers that arrive while it is in
// flight join it and get the same value and error. Each caller waits under its own
// ctx: when ctx ends first, Do returns the zero V and ctx.Err() at once, and the
// execution goes on for the others.
//
// fn gets a context that keeps the values of the first caller's ctx but not its
// cancellation or deadline. While fn runs, it is cancelled only when every waiter
// has left; at that moment the key is removed, so the next caller starts a fresh
// execution instead of joining a cancelled one. Once fn has returned, that context
// is cancelled too, to release it: fn must not keep it for work that outlives the
// call (a goroutine it starts, a lazily read result). If the first caller's ctx
// can never be cancelled (ctx.Done() returns nil), fn runs on that caller's
// goroutine, with that ctx, which nothing cancels; otherwise it runs on a new
// goroutine.
//
// A panic in fn, or a call to runtime.Goexit, reaches every waiter as a
// *[PanicError]. When fn runs on the first caller's goroutine and calls Goexit, that
// goroutine exits as Goexit demands, and its Do does not return; the other waiters
// still get the error.
//
// fn must not call Do or DoChan with the same key on the same Group: it would wait
// for itself. A nil fn is a programming error: Do panics at once, on the calling
// goroutine, before it starts or joins an execution, so the other callers of the
// key never see it (were it run, all of them would get a *PanicError).
//
// NOTE: since fn may run on another goroutine, a func literal passed as fn is
// allocated on the heap when it captures variables (typically the key): one small
// allocation per call, joiners included, that the group itself does not make. A fn
// that captures nothing per call (a func value built once) costs none; [DoWith]
// takes the per-call data as an argument so that fn can be such a func.
func (g *Group[K, V]) Do(ctx context.Context, key K, fn func(context.Context) (V, error)) (V, error) {
	if fn == nil {
		panic(nilFnPanic)
	}
	done := ctx.Done()
	if done != nil && isDone(done) {
		return g.doneOnEntry(ctx)
	}
	c, fctx, leader := g.join(ctx, key, done != nil)
	if !leader {
		return g.wait(ctx, done, key, c)
	}
	if done == nil {
		// The caller can never leave, so fn can never be abandoned: run it here,
		// on ctx itself, with no goroutine and no detached context.
		return g.execute(ctx, key, c, fn, true)
	}
	go g.execute(fctx, key, c, fn, false)
	return g.wait(ctx, done, key, c)
}

// DoWith is [Group.Do] for a fn that takes an argument: fn(ctx, arg) runs once for
// concurrent callers of g with the same key, with the arg of the caller that
// started the execution. Everything else is as for Do, including the panic for
// a nil fn.
//
// It exists so that the usual call allocates nothing: a func literal passed to Do
// that captures per-call variables (the key, a request) escapes to the heap on
// every call, joiners included, because fn may run on another goroutine. With
// DoWith, fn should be a static func (a top-level func, or a func value built
// once) and the per-call data goes in arg, which is passed by value: a caller that
// joins an execution allocates nothing, and one that starts an execution on a new
// goroutine (its ctx can be cancelled) makes one small allocation more than Do
// with a static fn would, holding fn and arg, on top of what such an execution
// costs either way (fn's detached context, the done channel, the goroutine).
// Pass the key as arg when fn needs nothing else:
//
//	func load(ctx context.Context, key string) (*Item, error) { ... }
//
//	item, err := coalesce.DoWith(&g, ctx, key, key, load)
//
// (DoWith is a function rather than a method because a method cannot have a type
// parameter of its own.)
func DoWith[K comparable, V, A any](g *Group[K, V], ctx context.Context, key K, arg A, fn func(context.Context, A) (V, error)) (V, error) {
	if fn == nil {
		panic(nilFnPanic)
	}
	done := ctx.Done()
	if done != nil && isDone(done) {
		return g.doneOnEntry(ctx)
	}
	c, fctx, leader := g.join(ctx, key, done != nil)
	if !leader {
		return g.wait(ctx, done, key, c)
	}
	if done == nil {
		return g.execute(ctx, key, c, func(ctx context.Context) (V, error) { return fn(ctx, arg) }, true)
	}
	go g.execute(fctx, key, c, func(ctx context.Context) (V, error) { return fn(ctx, arg) }, false)
	return g.wait(ctx, done, key, c)
}

// DoChan is like [Group.Do] but returns at once; the result arrives on the returned
// channel, which is buffered so the sender never blocks and receives exactly one
// [Result].
//
// The caller leaves early through ctx: when ctx ends before the result, the caller
// stops being a waiter (if it was the last one, fn's context is cancelled and the
// key removed) and the channel receives a Result whose Err is ctx.Err(). So a
// receive on the channel never hangs longer than ctx. fn always runs on a new
// goroutine. A nil fn panics at once, as for Do.
func (g *Group[K, V]) DoChan(ctx context.Context, key K, fn func(context.Context) (V, error)) <-chan Result[V] {
	if fn == nil {
		panic(nilFnPanic)
	}
	ch := make(chan Result[V], 1)
	done := ctx.Done()
	if done != nil && isDone(done) {
		_, err := g.doneOnEntry(ctx)
		ch <- Result[V]{Err: err}
		return ch
	}
	if c, fctx, leader := g.enterChan(ctx, key, done != nil, &chanWaiter[V]{ch: ch}); leader {
		go g.execute(fctx, key, c, fn, false)
	}
	return ch
}

// enterChan is the locked path of DoChan: w joins key's execution in flight, or
// starts one (leader true) whose fn runs on fctx.
func (g *Group[K, V]) enterChan(ctx context.Context, key K, cancellable bool, w *chanWaiter[V]) (c *call[K, V], fctx context.Context, leader bool) {
	g.mu.Lock()
	defer g.mu.Unlock() // also when an unhashable key panics in the map
	c = g.joinLocked(key)
	leader = c == nil
	if leader {
		c = g.startLocked(key)
	}
	w.i = len(c.chans)
	c.chans = append(c.chans, w)
	if cancellable {
		// Registered under the lock so that finish sees stop; the callback runs on
		// its own goroutine, so it cannot deadlock on g.mu.
		w.stop = context.AfterFunc(ctx, func() { g.leaveChan(ctx, key, c, w) })
	}
	fctx = ctx
	if leader && cancellable {
		fctx = g.detachLocked(ctx, c)
	}
	return c, fctx, leader
}

// Forget removes key's in-flight execution from the group, so the next call for key
// starts a fresh execution even while the old one runs. Callers already waiting keep
// their call and get its result; fn's context is not cancelled by Forget (it still is
// if all of that call's waiters leave). Forget of a key with nothing in flight does
// nothing.
//
// Use it when the result being computed is known to be stale, for example after a
// write to the key.
func (g *Group[K, V]) Forget(key K) {
	g.mu.Lock()
	defer g.mu.Unlock() // also when an unhashable key panics in the map
	if c, ok := g.m[key]; ok {
		g.unlinkLocked(key, c)
		g.forgets.Add(1)
	}
}

// Stats returns a snapshot of the group's counters. It does not lock the group;
// fields are read one by one, so a snapshot taken under load may be off by the
// calls in progress.
func (g *Group[K, V]) Stats() Stats {
	completed := g.completed.Load()
	executions := g.executions.Load()
	joins := g.joins.Load()
	return Stats{
		Calls:            executions + joins + g.onEntry.Load(),
		Executions:       executions,
		Joins:            joins,
		CancelledWaiters: g.cancelled.Load(),
		Abandoned:        g.abandoned.Load(),
		Panics:           g.panics.Load(),
		Forgets:          g.forgets.Load(),
		InFlight:         executions - completed,
	}
}

// Pending reports whether key has an execution in flight that a new caller
// would join.
func (g *Group[K, V]) Pending(key K) bool {
	g.mu.Lock()
	defer g.mu.Unlock() // also when an unhashable key panics in the map
	_, ok := g.m[key]
	return ok
}
