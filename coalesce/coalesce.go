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
// a result.
type Group[K comparable, V any] struct {
	mu   sync.Mutex // protects m, free, and the waiter bookkeeping of every call in m
	m    map[K]*call[V]
	free []*call[V] // finished calls nobody else saw, for reuse: see finish

	calls      atomic.Uint64
	executions atomic.Uint64
	completed  atomic.Uint64 // fn returned, panicked or exited: InFlight = executions - completed
	joins      atomic.Uint64
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
// cancellation or deadline. It is cancelled only when every waiter has left; at
// that moment the key is removed, so the next caller starts a fresh execution
// instead of joining a cancelled one. If the first caller's ctx can never be
// cancelled (ctx.Done() returns nil), fn runs on that caller's goroutine, with that
// ctx; otherwise it runs on a new goroutine.
//
// A panic in fn, or a call to runtime.Goexit, reaches every waiter as a
// *[PanicError]. When fn runs on the first caller's goroutine and calls Goexit, that
// goroutine exits as Goexit demands, and its Do does not return; the other waiters
// still get the error.
//
// fn must not call Do or DoChan with the same key on the same Group: it would wait
// for itself.
//
// NOTE: since fn may run on another goroutine, a func literal passed as fn is
// allocated on the heap when it captures variables (typically the key): one small
// allocation per call, joiners included, that the group itself does not make. A fn
// that captures nothing per call (a func value built once) costs none.
func (g *Group[K, V]) Do(ctx context.Context, key K, fn func(context.Context) (V, error)) (V, error) {
	done := ctx.Done()
	if done != nil && isDone(done) {
		return g.doneOnEntry(ctx)
	}
	g.mu.Lock()
	g.calls.Add(1)
	if c, ok := g.m[key]; ok {
		g.joinLocked(c)
		cdone := c.doneLocked()
		g.mu.Unlock()
		return g.wait(ctx, done, key, c, cdone)
	}
	c := g.startLocked(key)
	if done == nil {
		// The caller can never leave, so fn can never be abandoned: run it here,
		// on ctx itself, with no goroutine and no detached context.
		g.mu.Unlock()
		return g.execute(ctx, key, c, fn, true)
	}
	fctx := g.detachLocked(ctx, c)
	cdone := c.doneLocked()
	g.mu.Unlock()
	go g.execute(fctx, key, c, fn, false)
	return g.wait(ctx, done, key, c, cdone)
}

// DoChan is like [Group.Do] but returns at once; the result arrives on the returned
// channel, which is buffered so the sender never blocks and receives exactly one
// [Result].
//
// The caller leaves early through ctx: when ctx ends before the result, the caller
// stops being a waiter (if it was the last one, fn's context is cancelled and the
// key removed) and the channel receives a Result whose Err is ctx.Err(). So a
// receive on the channel never hangs longer than ctx. fn always runs on a new
// goroutine.
func (g *Group[K, V]) DoChan(ctx context.Context, key K, fn func(context.Context) (V, error)) <-chan Result[V] {
	ch := make(chan Result[V], 1)
	done := ctx.Done()
	if done != nil && isDone(done) {
		_, err := g.doneOnEntry(ctx)
		ch <- Result[V]{Err: err}
		return ch
	}
	w := &chanWaiter[V]{ch: ch}
	g.mu.Lock()
	g.calls.Add(1)
	c, ok := g.m[key]
	if ok {
		g.joinLocked(c)
	} else {
		c = g.startLocked(key)
	}
	c.chans = append(c.chans, w)
	if done != nil {
		// Registered under the lock so that finish sees stop; the callback runs on
		// its own goroutine, so it cannot deadlock on g.mu.
		w.stop = context.AfterFunc(ctx, func() { g.leaveChan(ctx, key, c, w) })
	}
	if ok {
		g.mu.Unlock()
		return ch
	}
	fctx := ctx
	if done != nil {
		fctx = g.detachLocked(ctx, c)
	}
	g.mu.Unlock()
	go g.execute(fctx, key, c, fn, false)
	return ch
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
	if _, ok := g.m[key]; ok {
		delete(g.m, key)
		g.forgets.Add(1)
	}
	g.mu.Unlock()
}

// Stats returns a snapshot of the group's counters. It does not lock the group;
// fields are read one by one, so a snapshot taken under load may be off by the
// calls in progress.
func (g *Group[K, V]) Stats() Stats {
	completed := g.completed.Load()
	return Stats{
		Calls:            g.calls.Load(),
		Executions:       g.executions.Load(),
		Joins:            g.joins.Load(),
		CancelledWaiters: g.cancelled.Load(),
		Abandoned:        g.abandoned.Load(),
		Panics:           g.panics.Load(),
		Forgets:          g.forgets.Load(),
		InFlight:         g.executions.Load() - completed,
	}
}
