package coalesce

import (
	"context"
	"sync/atomic"

	"github.com/tierkit/tierkit/internal/mapshrink"
)

// call is one execution of fn and the callers waiting for it.
//
// Its waiter bookkeeping is one atomic word, state, so that a caller can join a
// call it found through Group.hot without taking the group's lock:
//
//	bit 63      sealed: no caller may join any more (the result is final, or every
//	            waiter left and the call was abandoned)
//	bits 32-62  joins, callers beyond the first (saturating: only "any?" is read)
//	bits 0-31   waiters still waiting, Do and DoChan
//
// A caller joins with a CAS that fails once the call is sealed; finish seals with
// one atomic Or; the last waiter to leave seals in the same CAS that takes the
// count to zero. So no caller can join a call whose result is already being
// delivered, or whose context is about to be cancelled.
type call[K comparable, V any] struct {
	// key is set under Group.mu when the call starts, before anyone else can see
	// the call, and not changed while it can be found.
	key K

	state atomic.Uint64

	// Written by the goroutine running fn before the call is sealed; read by
	// waiters after they see it sealed or done closed.
	val V
	err error

	// Guarded by Group.mu (done: written once under it, before any goroutine
	// that reads it without the lock can reach the call).
	done   chan struct{}      // closed when the result is final; made for the first Do caller that must wait
	chans  []*chanWaiter[V]   // DoChan waiters still owed a Result
	cancel context.CancelFunc // cancels fn's context; nil when fn's context cannot be cancelled
}

const (
	sealed      = 1 << 63
	joinOne     = 1 << 32
	joinsMask   = (1<<31 - 1) << 32
	waitersMask = 1<<32 - 1
)

// tryJoin adds the caller to c as a waiter, unless c is sealed.
func (c *call[K, V]) tryJoin() bool {
	for {
		s := c.state.Load()
		if s&sealed != 0 {
			return false
		}
		n := s + 1
		if s&joinsMask != joinsMask {
			n += joinOne
		}
		if c.state.CompareAndSwap(s, n) {
			return true
		}
	}
}

// chanWaiter is a DoChan caller. Exactly one Result is sent on ch: by the goroutine
// that finishes the call, or by the ctx watcher if the caller leaves first; whether
// the call was sealed when the watcher looked, under Group.mu, decides which.
type chanWaiter[V any] struct {
	ch   chan Result[V]
	stop func() bool // stops the ctx watcher; nil when ctx cannot be cancelled
	i    int         // index in its call's chans while there; protected by Group.mu
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
	g.onEntry.Add(1)
	g.cancelled.Add(1)
	var zero V
	return zero, ctx.Err()
}

// joinHot is the lock-free join: when key's execution is c, the one in g.hot, and
// is still open, the caller becomes one of its waiters without touching the lock
// or the map. It returns nil when the caller must take the locked path. (The
// caller loads g.hot and checks it for nil, so that a cold key pays no call.)
func (g *Group[K, V]) joinHot(c *call[K, V], key K) *call[K, V] {
	if c.key != key || !c.tryJoin() {
		return nil
	}
	g.joins.Add(1)
	return c
}

// join finds the execution a caller of key waits on: the published hot one
// without the lock, else key's execution in flight, else a new one the caller
// leads (leader true; see enter for fctx).
func (g *Group[K, V]) join(ctx context.Context, key K, detach bool) (c *call[K, V], fctx context.Context, leader bool) {
	if h := g.hot.Load(); h != nil {
		if c := g.joinHot(h, key); c != nil {
			return c, nil, false
		}
	}
	return g.enter(ctx, key, detach)
}

// enter is the locked path of Do: it joins key's execution in flight, or starts
// one. For a new execution whose first caller can leave (detach), it also makes
// fn's context and the done channel the caller will wait on.
func (g *Group[K, V]) enter(ctx context.Context, key K, detach bool) (c *call[K, V], fctx context.Context, leader bool) {
	g.mu.Lock()
	defer g.mu.Unlock() // also when an unhashable key (K an interface) panics in the map
	if c := g.joinLocked(key); c != nil {
		c.doneLocked()
		g.publishLocked(c)
		return c, nil, false
	}
	c = g.startLocked(key) // none, or sealed (finishing or abandoned): start afresh
	if detach {
		fctx = g.detachLocked(ctx, c)
		c.doneLocked()
	}
	return c, fctx, true
}

// joinLocked joins key's execution in flight, if there is one still open.
func (g *Group[K, V]) joinLocked(key K) *call[K, V] {
	c, ok := g.m[key]
	if !ok || !c.tryJoin() {
		return nil // none, or sealed: it is finishing or abandoned, start afresh
	}
	g.joins.Add(1)
	return c
}

// publishLocked makes c, which a second caller has just joined (so it is hot and
// has its done channel), the one later callers of its key join without the lock.
// Calls nobody joined are never published, so a call that goes back to the free
// list can never be reached through g.hot.
func (g *Group[K, V]) publishLocked(c *call[K, V]) {
	if g.hot.Load() != c {
		g.hot.Store(c)
	}
}

// unlinkLocked makes c unreachable for new callers: it removes key's entry and the
// hot slot if they are still c's (Forget may have done so, and a newer call may
// own them now).
func (g *Group[K, V]) unlinkLocked(key K, c *call[K, V]) {
	if g.m[key] == c {
		delete(g.m, key)
		g.shrinkLocked()
	}
	if g.hot.Load() == c {
		g.hot.Store(nil)
	}
}

// shrinkLocked gives back the table of a key map that shrank: a Go map keeps the
// table of the most keys it held, so after a burst of distinct keys in flight at
// once (which client input can cause) the map is rebuilt at the size of what is
// left once that is a quarter of the peak or less. The copies cost at most a
// third of the deletes since the last rebuild.
func (g *Group[K, V]) shrinkLocked() {
	if mapshrink.Due(len(g.m), g.peak, shrinkMin) {
		g.m = mapshrink.Rebuild(g.m)
		g.peak = len(g.m)
	}
}

// shrinkMin is the fewest keys at which the key map is rebuilt after it shrank:
// a table that small is not worth a copy.
const shrinkMin = 256

// startLocked registers a new execution for key whose only waiter is the caller
// starting it, reusing a call from the free list when there is one.
func (g *Group[K, V]) startLocked(key K) *call[K, V] {
	if g.m == nil {
		g.m = make(map[K]*call[K, V])
	}
	var c *call[K, V]
	if n := len(g.free); n > 0 {
		c = g.free[n-1] // reset: one waiter
		g.free[n-1] = nil
		g.free = g.free[:n-1]
	} else {
		c = new(call[K, V])
		c.state.Store(1)
	}
	c.key = key
	// A key not equal to itself (a NaN, or a key holding one) stays out of the
	// map: no lookup could find it, so no finish or Forget could delete it.
	if key == key {
		g.m[key] = c
		if n := len(g.m); n > g.peak {
			g.peak = n
		}
	}
	g.executions.Add(1)
	return c
}

// doneLocked makes c's done channel if this is the first caller that needs one:
// an execution nobody waits on (the common case for a key without contention)
// allocates no channel.
func (c *call[K, V]) doneLocked() {
	if c.done == nil {
		c.done = make(chan struct{})
	}
}

// detachLocked returns fn's context for a call whose first caller can leave: the
// values of ctx, none of its cancellation, cancelled when the last waiter leaves.
func (g *Group[K, V]) detachLocked(ctx context.Context, c *call[K, V]) context.Context {
	fctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	c.cancel = cancel
	return fctx
}

// wait blocks until c finishes or ctx (whose Done channel is done) ends, whichever
// is first.
func (g *Group[K, V]) wait(ctx context.Context, done <-chan struct{}, key K, c *call[K, V]) (V, error) {
	if done == nil {
		<-c.done
		return c.val, c.err
	}
	select {
	case <-c.done:
		return c.val, c.err
	case <-done:
	}
	if !g.leave(key, c) {
		// The result and the cancellation arrived together: the result wins.
		return c.val, c.err
	}
	var zero V
	return zero, ctx.Err()
}

// leave removes one waiter from c, unless c is already sealed by finish, in which
// case the result is final and leave reports false. See leaveLocked.
func (g *Group[K, V]) leave(key K, c *call[K, V]) bool {
	g.mu.Lock()
	left := g.leaveLocked(key, c)
	g.mu.Unlock()
	return left
}

// leaveLocked is leave with g.mu held. When the waiter was the last one, the same
// CAS that takes the count to zero seals c; then, still under the lock, the key is
// removed and fn's context cancelled: a caller that comes after finds no entry (or
// a sealed one it cannot join) and starts a fresh execution; it can never join one
// whose context is cancelled, and since it starts under the lock, by the time it
// runs fn the old context is done. (cancel calls no user code synchronously:
// context runs AfterFunc callbacks and foreign parents' watchers on their own
// goroutines.)
//
// A waiter never sees c sealed by abandonment: it is itself one of the waiters the
// count includes, so a sealed c here is a finished one.
func (g *Group[K, V]) leaveLocked(key K, c *call[K, V]) bool {
	var abandon bool
	for {
		s := c.state.Load()
		if s&sealed != 0 {
			return false
		}
		n := s - 1
		abandon = n&waitersMask == 0 && c.cancel != nil
		if abandon {
			n |= sealed
		}
		if c.state.CompareAndSwap(s, n) {
			break
		}
	}
	g.cancelled.Add(1)
	if abandon {
		g.unlinkLocked(key, c)
		g.abandoned.Add(1)
		c.cancel()
	}
	return true
}

// leaveChan is the ctx watcher of a DoChan waiter. finish seals c and takes
// c.chans in one hold of the lock, and leaveLocked fails on a sealed c: so either w
// is removed here, in one hold of the lock, before finish takes c.chans, or finish
// has taken w with them and sends to it.
func (g *Group[K, V]) leaveChan(ctx context.Context, key K, c *call[K, V], w *chanWaiter[V]) {
	g.mu.Lock()
	if !g.leaveLocked(key, c) {
		g.mu.Unlock() // finish sends the result
		return
	}
	// w is still in c.chans (c is not sealed) at w.i: remove it by moving the
	// last waiter there, so that leaving costs the same however many stay.
	last := len(c.chans) - 1
	moved := c.chans[last]
	c.chans[w.i], moved.i = moved, w.i
	c.chans[last] = nil
	c.chans = c.chans[:last]
	g.mu.Unlock()
	w.ch <- Result[V]{Err: ctx.Err()}
}

// execute runs fn and publishes its result, whatever way fn ends, and returns it.
// inline says fn runs on the goroutine of the first caller, a Do caller, which reads
// the result from the return values rather than from c.
func (g *Group[K, V]) execute(ctx context.Context, key K, c *call[K, V], fn func(context.Context) (V, error), inline bool) (val V, err error) {
	normal, recovered := false, false
	defer func() {
		if !normal {
			if !recovered {
				// recover returns nil only for runtime.Goexit: since Go 1.21,
				// panic(nil) panics with a *runtime.PanicNilError, unless the
				// panicnil=1 setting is in force (then fn ran wrapped, below).
				if r := recover(); r != nil {
					c.err = newPanicError(r)
				} else {
					c.err = newGoexitError()
				}
			}
			g.panics.Add(1)
		}
		val, err = c.val, c.err
		g.finish(key, c, inline)
	}()
	if !panicNilRecoversNil {
		c.val, c.err = fn(ctx)
		normal = true
		return
	}
	// Under panicnil=1 a nil recover does not tell a Goexit from panic(nil):
	// only after a panic does the code after this func run. The stack is taken
	// in the defer, where it still shows where fn panicked.
	func() {
		defer func() {
			if !normal {
				c.err = newPanicError(recover())
			}
		}()
		c.val, c.err = fn(ctx)
		normal = true
	}()
	recovered = !normal
	return
}

// panicNilRecoversNil says the panicnil=1 setting is in force (a program
// declaring a Go version before 1.21, a //go:debug line or GODEBUG): recover
// then returns nil after panic(nil), as after runtime.Goexit. Read once at
// start, so that the usual setting pays nothing for telling them apart.
var panicNilRecoversNil = func() (isNil bool) {
	defer func() { isNil = recover() == nil }()
	panic(nil) // on purpose: to read the setting
}()

// finish publishes c's result: it makes c unreachable for new callers (unless
// Forget or abandonment already did, and a newer call may own the key), seals it so
// that no caller who found it a moment ago can join any more, then wakes the Do
// waiters with one close and sends to the DoChan waiters, outside the lock.
//
// When fn ran inline and nobody joined, no one but the first caller (which has the
// result in hand) ever saw c: it was never published in g.hot (only a joined call
// is), and a caller on the locked path would need the lock finish holds. c goes
// back to the free list without being sealed, so a key without contention costs no
// allocation and no extra atomic operation.
//
// fn has returned: the execution stops counting in Stats.InFlight before anyone
// can see its result. A waiter whose ctx ends as the result arrives takes the
// lock, finds c sealed and returns the result at once; counted after the
// unlock, a Stats call made on its return could still count c in flight.
func (g *Group[K, V]) finish(key K, c *call[K, V], inline bool) {
	g.completed.Add(1)
	g.mu.Lock()
	if g.m[key] == c { // unlinkLocked, written out for the path of every cold key
		delete(g.m, key)
		if g.peak >= shrinkMin {
			g.shrinkLocked()
		}
	}
	if g.hot.Load() == c {
		g.hot.Store(nil)
	}
	if inline && c.state.Load() == 1 {
		c.reset()
		if len(g.free) < maxFree {
			g.free = append(g.free, c)
		}
		g.mu.Unlock()
		return
	}
	shared := c.state.Or(sealed)&joinsMask != 0
	chans := c.chans
	c.chans = nil
	done := c.done
	g.mu.Unlock()
	if testHookSealed != nil {
		testHookSealed()
	}
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
		w.ch <- Result[V]{Val: c.val, Err: c.err, Shared: shared}
	}
}

// testHookSealed, if set, runs in finish after c is sealed and the lock released,
// before any waiter is woken: tests set it to hold the result there.
var testHookSealed func()

// reset clears a finished call that nobody joined for the free list. Its state
// stays 1, that of a call with one waiter: ready for the caller that will start it.
func (c *call[K, V]) reset() {
	var zk K
	var zv V
	c.key, c.val, c.err = zk, zv, nil
	c.done, c.chans, c.cancel = nil, nil, nil
}

// maxFree bounds the free list of a Group: a few calls cover the executions that
// overlap on a machine's cores without holding memory after a burst.
const maxFree = 8
