package coalesce

import "context"

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

// joinLocked adds a caller to c, the execution in flight for its key.
func (g *Group[K, V]) joinLocked(c *call[V]) {
	c.waiters++
	c.joins++
	g.joins.Add(1)
}

// startLocked registers a new execution for key whose only waiter is the caller
// starting it, reusing a call from the free list when there is one.
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
