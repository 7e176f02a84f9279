package shed

import (
	"context"
	"math"
	"sync"
	"time"
)

// Shedder admits requests per (tenant, priority) against a shared capacity, queues
// the excess in bounded buckets drained fairly by cost (see [Scheduler] for the
// exact order), and sheds what does not fit. Create it with [New]; it is safe for
// concurrent use and starts no goroutine.
type Shedder struct {
	mu sync.Mutex // protects everything below
	// protected by mu:
	sched    *Scheduler[*waiter]
	capacity Capacity
	inflight int64
	closed   bool
	fast     uint64    // fast-path admissions, paces the coarse clock
	free     []*ticket // recycled tickets (freelist.go)
	tickets  int       // tickets out (admissions in flight)
	keepTk   keep      // the free tickets' bound
	sweep    *time.Timer
	sweepAt  time.Time // when sweep fires; zero when it is not armed
	// enqueuedAt, enqueuedDeadline and enqueuedLimit are the time and queue
	// deadline of the request enqueueLocked just queued, and the limit it
	// read before queuing it, for the dispatchUnlock that follows it under
	// the same hold of mu.
	enqueuedAt, enqueuedDeadline time.Time
	enqueuedLimit                int64

	// waiters recycles the waiters of blocked Acquires outside the lock:
	// under overload every request queues, and recycling them under the lock
	// took it a third time per request. (Per Shedder, not global: a channel
	// belongs to the synctest bubble that made it.)
	waiters sync.Pool
}

// waiter is a blocked Acquire.
type waiter struct {
	ch   chan struct{} // buffered 1: the one decision is sent without blocking
	tk   *ticket       // set when admitted
	err  error         // set when shed
	next *waiter       // the next decided waiter of a readyList
}

// readyList holds the waiters decided (admitted or shed) under s.mu, in the
// order decided, linked through their next fields, for notify to signal once
// the lock is released. A list, not a slice: a slice on a stack buffer of 16
// pointers grew on the heap under the lock past 16 (Close's, from nil, for
// any number), and its buffer took 128 bytes of the stack of the goroutine
// that releases, under the dispatch: with a goroutine started per request,
// whose stack is at its smallest, the dispatch then ran out of stack in
// Pop's freeNode and grew (copied) the stack while holding the lock.
type readyList struct{ head, tail *waiter }

func (l *readyList) push(w *waiter) {
	w.next = nil
	if l.tail == nil {
		l.head = w
	} else {
		l.tail.next = w
	}
	l.tail = w
}

// notify signals the decided waiters. It reads each one's next before its
// signal: signalled, the waiter's Acquire returns it to the pool.
func (l *readyList) notify() {
	for w := l.head; w != nil; {
		next := w.next
		w.ch <- struct{}{}
		w = next
	}
}

// ticket is one admission; release is its cached release func (made once per
// ticket, which is recycled) so that returning it allocates nothing.
type ticket struct {
	s       *Shedder
	cost    int64
	live    bool // protected by s.mu
	release func()
}

// New returns a Shedder configured by cfg, or an error wrapping
// [ErrInvalidConfig] if cfg is invalid.
func New(cfg Config) (*Shedder, error) {
	sc, err := NewScheduler[*waiter](cfg)
	if err != nil {
		return nil, err
	}
	s := &Shedder{sched: sc, capacity: sc.cfg.capacity}
	s.waiters.New = func() any { return &waiter{ch: make(chan struct{}, 1)} }
	return s, nil
}

// SetConfig validates cfg and applies it atomically, or returns an error
// wrapping [ErrInvalidConfig] and changes nothing. Queued requests keep their
// places: bounds lowered below what a bucket holds (MaxQueue, MaxQueueCost)
// shed only later arrivals, and ShedOnArrival applies to arrivals. A lowered
// QueueDeadline or StandingDeadline applies to queued requests too (see
// [Scheduler.SetConfig]): those already waiting longer than the new deadline
// are shed with ReasonQueueDeadline before SetConfig returns, and the others
// at their new deadlines. A raised one applies to arrivals only. The
// new Capacity takes effect at once: the queued requests that fit in it are
// admitted before SetConfig returns (as with [Shedder.Kick]); one that
// shrinks below the cost in flight admits nothing until enough is released.
// A changed OverShareWindow keeps the share level's rate and restarts the
// share window at the time of the call (see [Config.OverShareWindow]).
//
// SetConfig holds the Shedder's lock while it applies cfg, and every Acquire,
// release and reader waits for it; it visits only the tenants whose state may
// change (named in the old or new Weights with a changed weight, ever marked
// over their share when OverShareWindow shrinks, with requests queued when a
// deadline is lowered), not every kept tenant: with 100,000 idle tenants
// kept, an unchanged Config takes 0.17 µs of CPU and one that changes a
// weight, the window and the deadline 0.6 µs, where a walk over every tenant
// took 2.6 and 11.7 ms (BenchmarkSetConfigTenants, raw output in
// shed/setconfig_abba62.txt). Its cost still grows with the Weights (each is
// validated and copied) and with the requests queued when a deadline is cut.
func (s *Shedder) SetConfig(cfg Config) error {
	s.mu.Lock()
	now := s.nowLocked()
	// A changed OverShareWindow restarts the share window at the latest
	// time seen: now, not the coarse clock of the fast path.
	s.sched.observe(s.sched.at(now))
	cut, err := s.sched.setConfig(cfg)
	if err != nil {
		s.mu.Unlock()
		return err
	}
	s.capacity = s.sched.cfg.capacity
	// The new limit before the cut deadlines shed anyone: if Limit panics,
	// no shed waiter is left unsignalled.
	limit := s.limitLocked()
	// The time again: Limit is the caller's code, and cutting the queued
	// requests' deadlines above visits each of them, so a request whose
	// deadline passed meanwhile must be shed, not admitted late.
	now = s.nowLocked()
	var ready readyList
	if cut {
		// Deadlines were cut: shed those now past, and arm the sweep for
		// the earliest left, which may come before the one it was armed for.
		if next, ok := s.sched.expire(s.sched.at(now)+1, ready.expired); ok {
			s.armForLocked(s.sched.epoch.Add(time.Duration(next)))
		}
	}
	s.dispatchLocked(now, limit, &ready)
	s.mu.Unlock()
	ready.notify()
	return nil
}

// Acquire admits a request of tenant at priority with the given cost (at least
// 1), blocking until it is admitted, shed, or ctx ends. On admission it returns a
// release func that the caller must call exactly once when the work is done;
// calling it again before the next admission is a no-op (the queued requests
// that the release itself admits do not count: they get other tickets), but a
// stale release called after its ticket was reused releases someone else's
// capacity (WARNING: tickets are recycled so that admission allocates nothing). A
// release never called holds its cost in flight for the Shedder's lifetime:
// admitted work has no timeout, so call release in a defer if the work can
// panic. It may be called after [Shedder.Close].
//
// If the request is shed, err is a *ShedError (errors.Is(err, ErrShed)): fail
// or back off. If ctx ends first, err is ctx.Err() and nothing is held, and the
// request counts in [Stats].Canceled; so does a request whose ctx had already
// ended when the fast path could not admit it: it is neither queued nor shed,
// even if its bucket was full or [Config.ShedOnArrival] would have shed it
// (only a closed Shedder's refusal comes first). A request admitted (or
// shed) as its ctx ends keeps that decision, counted once: with a nil err,
// release must be called even though ctx is done. A ctx that had already
// ended does not stop an admission on the fast path below, as with
// golang.org/x/sync/semaphore.
//
// Fast path: with free capacity and nothing queued, Acquire takes the lock once
// and allocates nothing.
//
// The shedder keeps tenant (as the key of the tenant's state, and, with many
// tenants, for up to 64 admissions until their bookkeeping is applied): a
// string made without copying from a buffer that is later reused (with
// unsafe.String, say) must be copied before it is passed.
// Pass a string that lives as long as the tenant, such as its name looked up
// once per connection: a string(buf) conversion on each call escapes and
// costs an allocation, and with the string the shedder keeps, a lookup
// compares pointers instead of reading the key's bytes (at 100,000 tenants
// in a random order a copied key cost about 50 ns more per admission, an
// extra cache miss, in the fifty-sixth session's alternating runs,
// bench/shed/fastpath_keycopy_abab.txt).
func (s *Shedder) Acquire(ctx context.Context, tenant string, priority int, cost int64) (release func(), err error) {
	cost = max(cost, 1)
	s.mu.Lock()
	if tk := s.fastLocked(tenant, priority, cost); tk != nil {
		s.mu.Unlock()
		return tk.release, nil
	}
	w, h, held, err := s.enqueueLocked(ctx, tenant, priority, cost, s.sinceLocked())
	if err != nil {
		return nil, err
	}
	if held { // capacity is free: admit what fits, from a frame of its own
		s.dispatchUnlock()
	}
	release, err = s.wait(ctx, w, h)
	*w = waiter{ch: w.ch} // nobody else holds w now; its channel is drained
	s.waiters.Put(w)
	return release, err
}

// enqueueLocked queues a request that the fast path could not admit (or
// refuses it). If nothing fits (the usual case when a request queues), it
// arms the deadline sweep and releases s.mu; if capacity is free, it returns
// held with s.mu still held, for the caller to call dispatchUnlock. It is a
// function of its own, never inlined, so that its frame is gone while the
// caller waits: Acquire's frame then stays small, and the wait's select fits
// in the initial stack of a goroutine started per request, which used to
// grow (a copy of the stack) in the select, on most queued requests. The
// dispatch runs from dispatchUnlock's frame, not from here, so the
// scheduler's bucket lookup below runs with less underneath it, and a
// dispatch runs with no more than Acquire's below it.
//
//go:noinline
func (s *Shedder) enqueueLocked(ctx context.Context, tenant string, priority int, cost int64, since time.Duration) (w *waiter, h Handle[*waiter], held bool, err error) {
	now := s.clockAt(since)
	if s.closed {
		s.sched.Refuse(now, tenant, priority, ReasonClosed)
		s.mu.Unlock()
		return nil, Handle[*waiter]{}, false, errClosed
	}
	if err := ctx.Err(); err != nil {
		s.sched.Refuse(now, tenant, priority, 0)
		s.mu.Unlock()
		return nil, Handle[*waiter]{}, false, err
	}
	// The limit before the push: if Limit panics, nothing is queued that
	// nobody waits for (a later dispatch would admit it, and nobody would
	// release it).
	limit := s.limitLocked()
	w = s.waiters.Get().(*waiter)
	marks := s.sched.overByShed
	h, deadline, err := s.sched.Push(now, tenant, priority, cost, w)
	if err != nil {
		if s.sched.overByShed != marks && (s.inflight == 0 || limit > s.inflight) {
			// The shed marked its tenant over its share: a head of its
			// that did not fit, holding back every queued request, now
			// holds back only the old list, so requests that fit may be
			// admitted now rather than at the next release or arrival.
			s.dispatchAtUnlock(now, limit)
		} else {
			s.mu.Unlock()
		}
		s.waiters.Put(w)
		return nil, Handle[*waiter]{}, false, err
	}
	if s.inflight == 0 || limit > s.inflight {
		s.enqueuedAt, s.enqueuedDeadline, s.enqueuedLimit = now, deadline, limit
		return w, h, true, nil
	}
	s.armForLocked(deadline)
	s.mu.Unlock()
	return w, h, false, nil
}

// dispatchUnlock follows an enqueueLocked that returned held: it admits the
// waiters that fit, arms the sweep for the queued request's deadline if some
// still wait, releases s.mu and signals the decided waiters. Never inlined:
// the dispatch's frames are on the stack only while it runs.
//
//go:noinline
func (s *Shedder) dispatchUnlock() {
	var ready readyList
	s.dispatchLocked(s.enqueuedAt, s.enqueuedLimit, &ready)
	s.armForLocked(s.enqueuedDeadline)
	s.mu.Unlock()
	ready.notify()
}

// dispatchAtUnlock admits the waiters that fit at now under limit, releases
// s.mu and signals the decided waiters. Never inlined, as dispatchUnlock.
//
//go:noinline
func (s *Shedder) dispatchAtUnlock(now time.Time, limit int64) {
	var ready readyList
	s.dispatchLocked(now, limit, &ready)
	s.mu.Unlock()
	ready.notify()
}

// armForLocked arms the deadline sweep for a request queued with deadline,
// if any request still waits and no earlier sweep is armed.
func (s *Shedder) armForLocked(deadline time.Time) {
	if s.sched.queued > 0 && (s.sweepAt.IsZero() || deadline.Before(s.sweepAt)) {
		s.armLocked(deadline)
	}
}

// wait blocks until w is decided (admitted, or shed by the deadline sweep or a
// dispatch) or ctx ends.
func (s *Shedder) wait(ctx context.Context, w *waiter, h Handle[*waiter]) (func(), error) {
	select {
	case <-w.ch:
		return w.result()
	case <-ctx.Done():
	}
	if s.cancel(h) {
		return nil, ctx.Err()
	}
	// Decided concurrently with ctx: the decision stands (the dispatcher
	// already counted it), so return it rather than leak capacity.
	<-w.ch
	return w.result()
}

// cancel takes the request of a waiter whose context ended out of its queue,
// and reports whether it was still there. The request may have been the head
// that did not fit, holding back cheaper ones behind it: those that fit now
// are admitted here, not at the next release. Not inlined, so that its
// dispatch's frame stays off wait's (the stack of every queued request).
//
//go:noinline
func (s *Shedder) cancel(h Handle[*waiter]) bool {
	s.mu.Lock()
	now := s.nowLocked()
	if !s.sched.Remove(now, h, 0) {
		s.mu.Unlock()
		return false
	}
	var ready readyList
	s.dispatchLocked(now, s.limitLocked(), &ready)
	s.mu.Unlock()
	ready.notify()
	return true
}

// armLocked sets the shared deadline sweep to fire at at. One timer serves
// every waiter: a timer per blocked Acquire cost more CPU than the rest of
// the shedder.
func (s *Shedder) armLocked(at time.Time) {
	s.sweepAt = at
	d := time.Until(at)
	if s.sweep == nil {
		s.sweep = time.AfterFunc(d, s.sweepDeadlines)
		return
	}
	s.sweep.Reset(d)
}

// sweepDeadlines sheds the expired requests at the heads of the buckets and
// re-arms the sweep for the earliest deadline left.
func (s *Shedder) sweepDeadlines() {
	var ready readyList
	s.mu.Lock()
	s.sweepAt = time.Time{}
	if !s.closed {
		now := s.nowLocked()
		// A request is late once now passes its deadline; the timer fires at
		// the deadline itself.
		next, ok := s.sched.expire(s.sched.at(now)+1, ready.expired)
		if ready.head != nil {
			// An expired head may have held back requests that fit now.
			s.dispatchLocked(now, s.limitLocked(), &ready)
		}
		if ok {
			s.armLocked(s.sched.epoch.Add(time.Duration(next)))
		}
	}
	s.mu.Unlock()
	ready.notify()
}

func (w *waiter) result() (func(), error) {
	if w.err != nil {
		return nil, w.err
	}
	return w.tk.release, nil
}

// TryAcquire is the non-blocking Acquire: it admits the request only when the
// capacity is free now and nothing is queued (it never jumps the queue), and
// otherwise returns a *ShedError with ReasonNoCapacity (or ReasonClosed).
func (s *Shedder) TryAcquire(tenant string, priority int, cost int64) (release func(), err error) {
	cost = max(cost, 1)
	s.mu.Lock() // not unlocked by a defer: see limitLocked
	if tk := s.fastLocked(tenant, priority, cost); tk != nil {
		s.mu.Unlock()
		return tk.release, nil
	}
	r := ReasonNoCapacity
	if s.closed {
		r = ReasonClosed
	}
	s.sched.Refuse(s.nowLocked(), tenant, priority, r)
	s.mu.Unlock()
	return nil, ErrorFor(r)
}

// fastLocked admits directly when nothing is queued and cost fits. It reads the
// clock only once every clockEvery admissions (time.Now costs about as much as
// the rest of the fast path): tenant state is stamped with that coarse time, which
// only idle reclamation uses.
func (s *Shedder) fastLocked(tenant string, priority int, cost int64) *ticket {
	if s.closed || s.sched.queued > 0 {
		return nil
	}
	if s.inflight > 0 && cost > s.limitLocked()-s.inflight {
		return nil
	}
	if s.fast++; s.fast%clockEvery == 0 {
		s.sched.observe(s.sched.at(s.nowLocked()))
	}
	s.sched.admit(tenant, priority, cost)
	return s.ticketLocked(cost)
}

// clockEvery is how many fast-path admissions share one clock reading.
const clockEvery = 64

// limitLocked reads the Capacity's limit. Limit is the caller's code: if it
// panics (or calls runtime.Goexit), s.mu is released before the panic goes
// on, so that a caller's caller that recovers it (net/http recovers a
// handler's panic) does not leave the Shedder locked for good. Its callers
// therefore never defer the unlock (a second Unlock is a fatal error), and
// read it before they change anything that would be left half done.
func (s *Shedder) limitLocked() int64 {
	read := false
	defer func() {
		if !read {
			s.mu.Unlock()
		}
	}()
	l := s.capacity.Limit()
	read = true
	return int64(max(l, 1))
}

func (s *Shedder) ticketLocked(cost int64) *ticket {
	s.inflight += cost
	var tk *ticket
	s.tickets++
	s.keepTk.used(s.tickets)
	if n := len(s.free); n > 0 {
		tk = s.free[n-1]
		s.free[n-1] = nil // the array must not keep it once freeTicketLocked drops it
		s.free = s.free[:n-1]
	} else {
		tk = &ticket{s: s}
		tk.release = func() { releaseTicket(tk) }
	}
	tk.cost, tk.live = cost, true
	return tk
}

// releaseTicket returns a ticket's capacity and admits waiters that now fit. The
// tickets reach it through this variable rather than a method value: a static
// reference would close the cycle release -> dispatchLocked -> ticketLocked ->
// release, and the compiler's escape analysis, which is conservative inside
// such a cycle, then moved every dispatch's list of decided waiters to the
// heap (an allocation, and a possible GC assist, under the lock).
var releaseTicket func(*ticket)

func init() { releaseTicket = func(tk *ticket) { tk.s.release(tk) } }

func (s *Shedder) release(tk *ticket) {
	s.mu.Lock()
	if !tk.live {
		s.mu.Unlock()
		return
	}
	tk.live = false
	s.inflight -= tk.cost
	s.tickets--
	if s.sched.queued == 0 {
		s.freeTicketLocked(tk)
		s.mu.Unlock()
		return
	}
	// tk is recycled after the dispatch, so that the waiters it admits get
	// other tickets: recycled first, it went to the first of them, and a
	// second call of this release (before any other admission) released
	// that waiter's capacity. If Limit panics, tk is left to the GC.
	var ready readyList
	s.dispatchLocked(s.nowLocked(), s.limitLocked(), &ready)
	s.freeTicketLocked(tk)
	s.mu.Unlock()
	ready.notify()
}

// dispatchLocked pops every waiter that fits in the free capacity, in drain order,
// and adds the decided waiters (admitted or expired) to ready, to signal
// after unlock. limit is the Capacity's, read by the caller.
func (s *Shedder) dispatchLocked(now time.Time, limit int64, ready *readyList) {
	for s.sched.queued > 0 {
		avail := limit - s.inflight
		if s.inflight == 0 {
			avail = math.MaxInt64
		}
		if avail <= 0 {
			break
		}
		w, cost, ok := s.sched.Pop(now, avail, ready.expired)
		if !ok {
			break
		}
		w.tk = s.ticketLocked(cost)
		ready.push(w)
	}
	if s.sched.queued == 0 {
		// Tenants whose last requests left by expiry, a cancel or the last
		// Pop stay on their drain lists until a Pop finds nothing queued, and
		// a listed tenant is never reclaimed (IdleTimeout, MaxTenants): with
		// the traffic back on the fast path, no Pop would come.
		s.sched.unlistAll()
	}
}

// expired sheds w, whose queue deadline passed, and adds it to l.
func (l *readyList) expired(w *waiter) {
	w.err = errQueueDeadline
	l.push(w)
}

// Config returns the configuration in force, as New or the last SetConfig
// got it (zero fields stay zero: they mean the defaults; Weights is a
// copy), so that a knob can change one field:
// c := s.Config(); c.MaxQueue = v; s.SetConfig(c).
func (s *Shedder) Config() Config {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sched.Config()
}

// Kick admits queued requests that fit now. Call it after the limit of the
// configured Capacity grows (an adaptive one), so that waiters need not wait
// for the next release; [Shedder.SetConfig] does it itself.
func (s *Shedder) Kick() {
	var ready readyList
	s.mu.Lock()
	s.dispatchLocked(s.nowLocked(), s.limitLocked(), &ready)
	s.mu.Unlock()
	ready.notify()
}

// Close sheds every queued request with ReasonClosed and makes later Acquire and
// TryAcquire calls fail with ReasonClosed. Admitted requests keep running and
// must still be released. Close is idempotent.
func (s *Shedder) Close() {
	s.mu.Lock()
	s.closed = true
	if s.sweep != nil {
		s.sweep.Stop()
		s.sweepAt = time.Time{}
	}
	var ready readyList
	for s.sched.queued > 0 {
		// Shed the queued requests one at a time, counted with ReasonClosed
		// (not admitted).
		w, _, ok := s.sched.popClosed(s.nowLocked())
		if !ok {
			break
		}
		w.err = errClosed
		ready.push(w)
	}
	// As dispatchLocked once the queue empties: the tenant popClosed emptied
	// last stays listed otherwise, and a listed tenant is never reclaimed.
	s.sched.unlistAll()
	s.mu.Unlock()
	ready.notify()
}

// Stats returns the totals and the current in-flight cost and limit.
func (s *Shedder) Stats() Stats {
	s.mu.Lock() // not unlocked by a defer: see limitLocked
	st := s.sched.Stats()
	st.InFlight = s.inflight
	st.Limit = int(s.limitLocked())
	s.mu.Unlock()
	return st
}

// Tenant returns the stats of tenant's buckets, one per priority (lowest first),
// or nil if its state is not kept.
func (s *Shedder) Tenant(tenant string) []BucketStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sched.Tenant(nil, tenant)
}

// Buckets returns the stats of every kept bucket.
func (s *Shedder) Buckets() []BucketStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sched.Buckets(nil)
}
