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

// call is one execution of fn and the callers waiting for it.
type call[V any] struct {
	// Written by the goroutine running fn before finished is set under Group.mu
	// and done is closed; read by waiters after either.
	val    V
	err    error
	shared bool

	// Guarded by Group.mu.
	done     chan struct{}      // closed when the result is final; made on demand, for the first Do caller that must wait
	waiters  int                // callers still waiting, Do and DoChan
	joins    int                // callers beyond the first
	finished bool               // fn is done; the result is final
	chans    []*chanWaiter[V]   // DoChan waiters still owed a Result
	cancel   context.CancelFunc // cancels fn's context; nil when fn's context cannot be cancelled
}

// chanWaiter is a DoChan caller. Exactly one Result is sent on ch: by the goroutine
// that finishes the call, or by the ctx watcher if the caller leaves first; the
// call's finished flag, read under Group.mu, decides which.
type chanWaiter[V any] struct {
	ch   chan Result[V]
	stop func() bool // stops the ctx watcher; nil when ctx cannot be cancelled
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

// isDone reports whether done is closed, without blocking.
func isDone(done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// doneOnEntry accounts for a caller whose ctx ended before it called.
func (g *Group[K, V]) doneOnEntry(ctx context.Context) (V, error) {
	g.calls.Add(1)
	g.cancelled.Add(1)
	var zero V
	return zero, ctx.Err()
}

func (g *Group[K, V]) joinLocked(c *call[V]) {
	c.waiters++
	c.joins++
	g.joins.Add(1)
}

func (g *Group[K, V]) startLocked(key K) *call[V] {
	if g.m == nil {
		g.m = make(map[K]*call[V])
	}
	var c *call[V]
	if n := len(g.free); n > 0 {
		c = g.free[n-1]
		g.free[n-1] = nil
		g.free = g.free[:n-1]
	} else {
		c = new(call[V])
	}
	c.waiters = 1
	g.m[key] = c
	g.executions.Add(1)
	return c
}

// doneLocked returns c's done channel, making it if this is the first caller that
// needs one: an execution nobody waits on (the common case for a key without
// contention) allocates no channel.
func (c *call[V]) doneLocked() chan struct{} {
	if c.done == nil {
		c.done = make(chan struct{})
	}
	return c.done
}

// detachLocked returns fn's context for a call whose first caller can leave: the
// values of ctx, none of its cancellation, cancelled when the last waiter leaves.
func (g *Group[K, V]) detachLocked(ctx context.Context, c *call[V]) context.Context {
	fctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	c.cancel = cancel
	return fctx
}

// wait blocks until c finishes or ctx ends, whichever is first.
// cdone is c.done, read under the lock.
func (g *Group[K, V]) wait(ctx context.Context, done <-chan struct{}, key K, c *call[V], cdone <-chan struct{}) (V, error) {
	if done == nil {
		<-cdone
		return c.val, c.err
	}
	select {
	case <-cdone:
		return c.val, c.err
	case <-done:
	}
	g.mu.Lock()
	if c.finished {
		// The result and the cancellation arrived together: the result wins.
		g.mu.Unlock()
		return c.val, c.err
	}
	g.leaveLocked(key, c)
	g.mu.Unlock()
	var zero V
	return zero, ctx.Err()
}

// leaveChan is the ctx watcher of a DoChan waiter.
func (g *Group[K, V]) leaveChan(ctx context.Context, key K, c *call[V], w *chanWaiter[V]) {
	g.mu.Lock()
	if c.finished {
		g.mu.Unlock() // finish sends the result
		return
	}
	for i, x := range c.chans {
		if x == w {
			last := len(c.chans) - 1
			c.chans[i] = c.chans[last]
			c.chans[last] = nil
			c.chans = c.chans[:last]
			break
		}
	}
	g.leaveLocked(key, c)
	g.mu.Unlock()
	w.ch <- Result[V]{Err: ctx.Err()}
}

// leaveLocked removes one waiter from c. When it was the last one, the key is
// removed and then fn's context cancelled, both under the lock: a caller that comes
// after finds no entry and starts a fresh execution; it can never join one whose
// context is already cancelled, and by the time it runs fn the old context is done.
// (cancel calls no user code synchronously: context runs AfterFunc callbacks and
// foreign parents' watchers on their own goroutines.)
func (g *Group[K, V]) leaveLocked(key K, c *call[V]) {
	g.cancelled.Add(1)
	c.waiters--
	if c.waiters > 0 || c.cancel == nil {
		return
	}
	if g.m[key] == c {
		delete(g.m, key)
	}
	g.abandoned.Add(1)
	c.cancel()
}

// execute runs fn and publishes its result, whatever way fn ends, and returns it.
// inline says fn runs on the goroutine of the first caller, a Do caller, which reads
// the result from the return values rather than from c.
func (g *Group[K, V]) execute(ctx context.Context, key K, c *call[V], fn func(context.Context) (V, error), inline bool) (val V, err error) {
	normal := false
	defer func() {
		if !normal {
			// recover returns nil only for runtime.Goexit: since Go 1.21, panic(nil)
			// panics with a *runtime.PanicNilError.
			if r := recover(); r != nil {
				c.err = newPanicError(r)
			} else {
				c.err = newGoexitError()
			}
			g.panics.Add(1)
		}
		val, err = c.val, c.err
		g.finish(key, c, inline)
	}()
	c.val, c.err = fn(ctx)
	normal = true
	return
}

// finish publishes c's result: it removes the key (unless Forget or abandonment
// already did, and a newer call may own it), wakes the Do waiters and sends to the
// DoChan waiters, outside the lock.
//
// When fn ran inline and nobody joined, no one but the first caller (which has the
// result in hand) ever saw c, and no one can find it any more: c goes back to the
// free list, so a key without contention costs no allocation.
func (g *Group[K, V]) finish(key K, c *call[V], inline bool) {
	g.mu.Lock()
	if g.m[key] == c {
		delete(g.m, key)
	}
	if inline && c.joins == 0 {
		*c = call[V]{}
		if len(g.free) < maxFree {
			g.free = append(g.free, c)
		}
		g.mu.Unlock()
		g.completed.Add(1)
		return
	}
	c.shared = c.joins > 0
	c.finished = true
	chans := c.chans
	c.chans = nil
	done := c.done
	g.mu.Unlock()
	g.completed.Add(1)
	if done != nil {
		close(done)
	}
	if c.cancel != nil {
		c.cancel() // releases the detached context
	}
	for _, w := range chans {
		if w.stop != nil {
			w.stop()
		}
		w.ch <- Result[V]{Val: c.val, Err: c.err, Shared: c.shared}
	}
}

// maxFree bounds the free list of a Group: a few calls cover the executions that
// overlap on a machine's cores without holding memory after a burst.
const maxFree = 8
