package shed

import (
	"math"
	"math/bits"
	"time"
)

// Scheduler is the pure decision core of the shedder: the buckets, their bounds and
// deadlines, and the drain order. It is not safe for concurrent use and never reads
// the clock: every method that needs time takes now. [Shedder] wraps it with a
// lock, a capacity source and blocking waits; simulations and policy tests drive it
// directly on a virtual clock (examples/overload does).
//
// NOTE: every now is read as given, also one before a now given earlier (a
// clock that stepped back, or readings taken before the caller's lock and
// passed out of order): a request pushed at it gets its deadline from it (or
// the one ahead of it in its bucket, as always).
// What was set at the later time stays there: over-share marks, the share
// level and the deadlines of the requests queued before a step back run out
// only once the clock is back past the times they were set for, so a step
// back of an hour holds them for that hour. Pass a monotonic clock (as
// time.Now's reading is; the Shedder passes its first reading plus the
// monotonic time since).
//
// # Drain order
//
// Tenants are served by deficit round robin by cost (Shreedhar and Varghese,
// SIGCOMM 1995) over two lists, in the manner of FQ-CoDel's new and old flows
// (RFC 8290, section 4.1) but split by share rather than by recency: the fresh
// list holds the tenants under their share, the old list those over it, and the
// fresh list is served first. A tenant is over its share for OverShareWindow
// after one of its requests is shed (bucket full or queue deadline), or once,
// within the current window of OverShareWindow, it has been served more cost
// per unit of weight than the level of the previous window: the most cost
// per unit of weight one tenant served from the old list got, exactly (a
// fraction for a weighted one: 0.9 for 9 cost at weight 10), what each
// backlogged tenant over its share got, the max-min fair level (a light tenant
// on the old list, there after a shed, gets less and does not lower it); or,
// when the old list was backlogged and served nothing, half of the most cost
// per unit of weight one fresh tenant got, exactly too, but at least a cost
// of 1 per that tenant's weight (0.45 for 9 at weight 10; 1, not 0.5, for 1
// at weight 1). The old list counts as backlogged when it holds tenants as
// the window closes, even if their requests have left the queue since
// (expired or removed: they were starved meanwhile); a tenant leaves a list
// only when Pop finds it empty at the head, or (below) for the fresh list.
//
// A tenant with nothing listed that gets a request joins the fresh list (the
// old list if it is over its share) with one quantum (Quantum x weight) of
// credit. A tenant on the old list that gets a request once its mark has run
// out moves to the back of the fresh list (with one quantum of credit if it
// had emptied, else with its own): the old list is served only when the fresh
// list is empty, so there it would wait as long as the tenants under their
// share stay backlogged. The head tenant's head request is served while the tenant's deficit
// covers its cost, and the deficit shrinks by that cost; when it no longer
// covers the head, the tenant moves to the back of the old list if it is over
// its share, else of the fresh list, and on its next visit receives another
// quantum. A tenant's deficit resets to zero when its queue empties, however
// its last request left (served, canceled or expired), so neither idle time
// nor a costly head that never ran leaves it credit for its next burst; the
// tenant leaves its list when it is found empty at the head (a request it
// gets before then keeps the tenant's place and is served from its next
// quantum).
//
// With [Config.FreshArrivalOrder], a visit on the fresh list does not end
// when the quantum is spent: it serves every request the tenant had queued
// when the visit began (its head requests while their enqueue time is not
// after the visit's start, and while the tenant stays under its share), so
// tenants under their share are served nearly in arrival order.
//
// Over any busy period each backlogged tenant of one list thus receives cost in
// proportion to its weight, within Quantum x weight + the largest cost; a
// tenant under its share (the normal tenants of an overload, sparse or large)
// waits only for the other tenants under their share, never for a round of
// the floods; and a flood that was never shed joins the old list as soon as it
// gets more than the floods there.
//
// Within a tenant's share, priorities are strict: the head request of the
// highest non-empty priority is served first, and its cost is charged to the
// tenant's single deficit. A tenant's high-priority traffic can therefore delay
// its own low-priority traffic, never another tenant's.
//
// If the head request chosen by this order does not fit in the free capacity,
// Pop returns nothing (the request keeps its place): a costly request is not
// starved by cheaper ones behind it. NOTE: behind it means every other
// tenant's too, until enough capacity is released: once its tenant's turn
// comes (the deficit covers it), a request costlier than the whole limit
// (its bucket was empty, so MaxQueueCost let it in) holds every queued
// request back until nothing is in flight, and then runs alone. Cap the cost
// a tenant may ask at the limit if that stall is not acceptable. The one
// exception is the fresh list, which is served first: a costly head on the
// old list (its tenant over its share) holds back only the old list, as does
// one of a tenant over its share on the fresh list (marked over after it was
// listed), which moves to the old list with its turn instead; the
// requests of tenants under their share are still served ahead of it, and
// while they keep enough of the capacity busy it waits, and is shed at its
// deadline rather than run.
//
// # Deadlines
//
// A request gets the deadline QueueDeadline, or StandingDeadline if its tenant
// is over its share and it joins a standing queue (a bucket that was not empty
// at any time in the last QueueDeadline), but never a deadline earlier than
// that of the request ahead of it in its bucket. A SetConfig that lowers
// either deadline cuts the queued requests' deadlines the same way (see
// [Scheduler.SetConfig]). Expired requests are shed when their
// tenant reaches the head of its list ([Scheduler.Pop]), when
// [Scheduler.Expire] sweeps, or by the caller's own timer ([Scheduler.Remove]).
//
// With [Config.ShedOnArrival], [Scheduler.Push] sheds a request that joins
// a standing queue of a tenant over its share (ReasonQueueDeadline, at once)
// when, served at the share level (level x weight per OverShareWindow), the
// cost queued ahead of it in its tenant's buckets of its priority and above
// would take longer to drain than the time to its deadline. Such a tenant is
// served from the old list at about the level, so its request would most
// likely expire in the queue; shedding it on arrival saves its wait and its
// sweep. With no level (nothing over its share was backlogged in the
// previous window) nothing is shed on arrival.
type Scheduler[T any] struct {
	cfg     config
	epoch   time.Time
	started bool

	tenants   tenantTable[T]
	pend      *[admitLog]pendingAdmit // direct admissions not yet applied to their tenants
	npend     int                     // how many
	sink      uint32                  // settle's loads land here, so that they are kept
	hand      int                     // reclamation hand over tenants' slots
	touches   uint64
	coarse    int64         // latest time seen, stamps tenants
	fresh     tenantList[T] // tenants that just became active, served first
	old       tenantList[T] // backlogged tenants, in round-robin order
	active    int           // tenants with queued requests
	free      *node[T]      // recycled nodes (freelist.go)
	nfree     int           // how many
	keepNodes keep          // the free list's bound

	queued     int
	queuedCost wideSum // exact: a few huge costs queued at once pass MaxInt64
	total      counters
	share      shareWindow
	reclaimed  int64
	// tenants marked over their share, from under it: on a shed, on the level
	overByShed, overByLevel int64
	gen                     uint64
	// marked holds the kept tenants that markOver ever marked (each once),
	// the only ones a SetConfig that shortens OverShareWindow must visit.
	marked []*tenantState[T]

	wheel      [wheelSlots]*node[T] // queued requests by deadline (wheel.go)
	swept      int64                // the wheel slot the last sweep reached
	dueTenants []*tenantState[T]    // the sweep's scratch

	// given is the Config as NewScheduler or the last SetConfig got it,
	// Weights copied, for [Scheduler.Config]; last, off the hot fields.
	given Config
}

// Handle identifies a queued request, for [Scheduler.Remove]. It is invalid once
// the request is popped or removed; using it then is a harmless no-op.
type Handle[T any] struct {
	n   *node[T]
	gen uint64
}

type node[T any] struct {
	v          T
	cost       int64
	enq, dl    int64 // enqueue time and deadline
	t          *tenantState[T]
	prio       int
	standing   bool   // it joined a standing queue: StandingDeadline applied
	gen        uint64 // 0 when free
	next, prev *node[T]
	// links of the deadline wheel's slot (wheel.go)
	wnext, wprev *node[T]
}

// bucket is the queue of one (tenant, priority): what the drain order reads.
// Its counters live apart, in the tenant's counts, so that a tenant's lists
// and both buckets fit in its first three cache lines: under overload every
// request is queued, and the drain touches these lines of a tenant that has
// usually left the caches since its last request.
type bucket[T any] struct {
	head, tail *node[T]
	n          int
	cost       int64
	lastEmpty  int64
}

type tenantState[T any] struct {
	// What Push and Pop read and write comes first.
	buckets   []bucket[T]
	weight    int64
	deficit   int64
	overUntil int64  // over its share until then: it had a request shed
	win       uint64 // the share window winCost counts in
	winCost   int64  // cost served from the queue in that window, saturated at MaxInt64
	visitAt   int64
	queued    int
	inTurn    bool  // the quantum of the current visit was added
	visiting  bool  // the tenant reached the head of its list at visitAt
	list      uint8 // which drain list holds the tenant: notListed, inFresh, inOld
	marked    int32 // 1 + its index in the Scheduler's marked, 0 if not there
	// links of the drain list
	rnext, rprev *tenantState[T]
	// inline holds the buckets when there are at most two priorities, so that
	// they live in the tenant's own allocation.
	inline [2]bucket[T]

	// Read and written once per request or less.
	counts       []counters // by priority, as buckets
	name         string
	overAt       int64                          // when markOver last set overUntil, for a SetConfig that shortens the window
	fast         [lanes]struct{ n, cost int64 } // direct admissions folded from the slot; the fast path touches the tenant's slot (table.go), not this state
	inlineCounts [2]counters
}

// NewScheduler returns an empty Scheduler. It returns an error wrapping
// [ErrInvalidConfig] if cfg is invalid.
func NewScheduler[T any](cfg Config) (*Scheduler[T], error) {
	c, err := cfg.validate()
	if err != nil {
		return nil, err
	}
	return &Scheduler[T]{cfg: c, tenants: newTenantTable[T](), pend: new([admitLog]pendingAdmit), given: cfg.clone()}, nil
}

// Config returns the configuration in force, as NewScheduler or the last
// SetConfig got it (zero fields stay zero: they mean the defaults; Weights is
// a copy), so that a knob can change one field: copy, set, SetConfig.
func (s *Scheduler[T]) Config() Config { return s.given.clone() }

// Queued returns the number of requests waiting.
func (s *Scheduler[T]) Queued() int { return s.queued }

// Admit records a request admitted without queueing (the caller found free
// capacity and nothing queued), with a cost below 1 counted as 1, as in
// [Scheduler.Push]. It never sheds.
func (s *Scheduler[T]) Admit(now time.Time, tenant string, priority int, cost int64) {
	s.observe(s.at(now))
	s.admit(tenant, priority, max(cost, 1))
}

// admit is Admit on the coarse clock (the Shedder's fast path reads no clock).
// It counts the admission in the totals now. While the tenants' slots fit in
// the CPU caches it does the tenant's own bookkeeping at once; beyond, it
// defers it to settle, which applies up to admitLog admissions at a time.
func (s *Scheduler[T]) admit(tenant string, priority int, cost int64) {
	s.total.admitted++
	s.total.admittedCost = satAdd(s.total.admittedCost, cost)
	if s.npend == 0 && len(s.tenants.slots) <= directSlots {
		s.count(s.touch(tenant), priority, cost)
		return
	}
	if s.npend == admitLog {
		s.settle()
	}
	s.pend[s.npend] = pendingAdmit{name: tenant, prio: priority, cost: cost}
	s.npend++
}

// Push queues v for (tenant, priority) with the given cost (a cost below 1
// counts as 1, as in [Shedder.Acquire]), or sheds it with ReasonBucketFull
// when the bucket is at its bounds. It returns the handle of the queued
// request and its deadline.
func (s *Scheduler[T]) Push(now time.Time, tenant string, priority int, cost int64, v T) (Handle[T], time.Time, error) {
	cost = max(cost, 1) // a negative cost would lower the bucket's cost below its bound
	at := s.at(now)
	s.observe(at)
	// The tenant's state as state gives it, but the reclamation hand's step
	// that this touch may owe runs at the end, from Push's own frame: taken
	// in touchHashed, three calls deeper, it was where the stack of a
	// goroutine started per request ran out and grew, under the Shedder's
	// lock (the overload experiment's profiles, sixty-fifth session). The
	// step reclaims only idle tenants, and t was just stamped: the order
	// changes no decision.
	s.settle()
	t := s.stamp(tenant, s.tenants.hash(tenant)).t
	sweep := s.sweepTurn()
	p := clamp(priority, len(t.buckets))
	b := &t.buckets[p]
	if b.n > 0 && (b.n >= s.cfg.maxQueue || cost > s.cfg.maxQueueCost-b.cost) {
		s.countShed(t, p, ReasonBucketFull, at)
		s.sweepIf(sweep)
		return Handle[T]{}, time.Time{}, errBucketFull
	}
	dl, standing := s.cfg.queueDeadline, false
	if b.n == 0 {
		b.lastEmpty = at
	} else if at-b.lastEmpty > s.cfg.queueDeadline && t.over(at) {
		dl, standing = s.cfg.standingDeadline, true
	}
	due := satAdd(at, dl)
	if b.tail != nil {
		// Deadlines never decrease along a bucket, so that expiring its head
		// is exact: a request is not shed before the ones ahead of it.
		due = max(due, b.tail.dl)
	}
	if standing && s.cfg.shedOnArrival && s.wouldMiss(t, p, at, due-at) {
		s.countShed(t, p, ReasonQueueDeadline, at)
		t.counts[p].onArrival++
		s.total.onArrival++
		s.sweepIf(sweep)
		return Handle[T]{}, time.Time{}, errQueueDeadline
	}
	n := s.newNode()
	n.v, n.cost, n.enq, n.dl, n.t, n.prio, n.standing = v, cost, at, due, t, p, standing
	s.wheelLink(n)
	n.prev = b.tail
	if b.tail != nil {
		b.tail.next = n
	} else {
		b.head = n
	}
	b.tail = n
	b.n++
	b.cost += cost
	if t.queued++; t.queued == 1 {
		s.active++
	}
	s.queued++
	s.keepNodes.used(s.queued)
	s.queuedCost.add(cost)
	s.listOnPush(t, at)
	s.sweepIf(sweep)
	return Handle[T]{n: n, gen: n.gen}, s.epoch.Add(time.Duration(due)), nil
}

// sweepIf steps the reclamation hand if due (Push's deferred step).
func (s *Scheduler[T]) sweepIf(due bool) {
	if due {
		s.sweep()
	}
}

// wouldMiss reports whether a request of t at priority p would wait longer
// than budget if t were served at the share level: the cost queued ahead of it
// (in t's buckets of priority p and above) takes ahead / (level x weight) of an
// OverShareWindow to drain. With no level (nothing over its share was backlogged
// in the previous window) there is no estimate, and nothing is shed.
func (s *Scheduler[T]) wouldMiss(t *tenantState[T], p int, at, budget int64) bool {
	lc, lw := s.levelAt(at)
	if lc <= 0 {
		return false
	}
	// ahead/(level*weight) windows > budget/window, with level = lc/lw, in
	// floating point: the products overflow int64 for large costs, and so
	// does the sum (an empty bucket takes a request of any cost, so each can
	// hold up to MaxInt64).
	var ahead float64
	for q := p; q < len(t.buckets); q++ {
		ahead += float64(t.buckets[q].cost)
	}
	return ahead*float64(s.cfg.overShareWindow)*float64(lw) > float64(budget)*float64(lc)*float64(t.weight)
}

// Pop returns the next request in drain order if its cost fits in avail (pass a
// huge avail, such as math.MaxInt64, when nothing is in flight, so that a request
// costlier than the whole limit still runs alone). Expired requests met on the way
// are removed, counted as shed with ReasonQueueDeadline, and passed to expired
// (which may be nil). ok is false when nothing is queued or the next request does
// not fit.
func (s *Scheduler[T]) Pop(now time.Time, avail int64, expired func(T)) (v T, cost int64, ok bool) {
	at := s.at(now)
	if s.queued == 0 {
		s.unlistAll()
		return v, 0, false
	}
	spins, spinFresh := 0, true // spun's count, and the list it counts on
	for {
		t, fresh := s.fresh.head, true
		if t == nil {
			t, fresh = s.old.head, false
		}
		if t == nil {
			return v, 0, false
		}
		if fresh != spinFresh {
			spins, spinFresh = 0, fresh
		}
		s.expireHeads(t, at, expired)
		if t.queued == 0 {
			// An emptied tenant leaves its list, and its credit with it.
			s.unlistHead(t, fresh)
			continue
		}
		p := t.top()
		n := t.buckets[p].head
		if !t.inTurn {
			t.deficit = satAdd(t.deficit, sat(s.cfg.quantum, t.weight))
			t.inTurn = true
		}
		if !t.visiting {
			t.visiting, t.visitAt = true, at
		}
		// A visit on the fresh list serves what the tenant had queued when
		// the visit began: tenants under their share are served nearly in
		// arrival order. The head's cost is granted only once it is served:
		// granted to a head that does not fit, it stayed as credit after the
		// head was canceled or expired.
		arrival := t.deficit < n.cost && fresh && s.cfg.freshArrival && n.enq <= t.visitAt && !t.over(at)
		if t.deficit < n.cost && !arrival {
			t.inTurn, t.visiting = false, false
			s.requeue(t, fresh, at)
			spins = s.spun(t, fresh, spins)
			continue
		}
		if n.cost > avail {
			if fresh && t.over(at) {
				// Over its share: it holds back only the old list.
				s.requeue(t, fresh, at)
				t.visiting = false
				continue
			}
			return v, 0, false
		}
		if arrival {
			t.deficit = n.cost
		}
		t.deficit -= n.cost
		s.served(t, n.cost, at, fresh)
		c := &t.counts[p]
		c.admitted++
		c.admittedCost = satAdd(c.admittedCost, n.cost)
		wait := max(at-n.enq, 0) // a caller's clock that went back: no time waited
		c.wait(wait)
		s.total.admitted++
		s.total.admittedCost = satAdd(s.total.admittedCost, n.cost)
		s.total.wait(wait)
		v, cost = n.v, n.cost
		s.unlink(n, at)
		return v, cost, true
	}
}

// top returns the highest priority with a non-empty bucket; t must have
// queued requests.
func (t *tenantState[T]) top() int {
	for p := len(t.buckets) - 1; p > 0; p-- {
		if t.buckets[p].n > 0 {
			return p
		}
	}
	return 0
}

// at converts now to nanoseconds since the first time the Scheduler saw.
func (s *Scheduler[T]) at(now time.Time) int64 {
	if !s.started {
		s.epoch, s.started = now, true
	}
	return int64(now.Sub(s.epoch))
}

// markOver records that t had a request shed at at (or, byLevel, was served
// more than the share level): it counts as over its share for the next
// OverShareWindow. A tenant that was under its share is counted in Stats.
func (s *Scheduler[T]) markOver(t *tenantState[T], at int64, byLevel bool) {
	if !t.over(at) {
		if byLevel {
			s.overByLevel++
		} else {
			s.overByShed++
		}
	}
	t.overUntil, t.overAt = satAdd(at, s.cfg.overShareWindow), at
	if t.marked == 0 {
		s.marked = append(s.marked, t)
		t.marked = int32(len(s.marked))
	}
}

// over reports whether t had a request shed within OverShareWindow before at.
func (t *tenantState[T]) over(at int64) bool { return at < t.overUntil }

func mustReason(r Reason) {
	if int(r) >= numReasons {
		panic("shed: invalid reason " + r.String())
	}
}

func clamp(p, n int) int {
	if p < 0 {
		return 0
	}
	if p >= n {
		return n - 1
	}
	return p
}

// popClosed removes the first queued request (any order) and counts it as shed
// with ReasonClosed. The emptied tenants it finds at the heads of the lists
// leave them, as in Pop: left listed, each call walked past the tenants the
// calls before it emptied, and a Close took time quadratic in the tenants
// queued.
func (s *Scheduler[T]) popClosed(now time.Time) (v T, cost int64, ok bool) {
	var t *tenantState[T]
	for _, fresh := range []bool{true, false} {
		l := &s.old
		if fresh {
			l = &s.fresh
		}
		for l.head != nil && l.head.queued == 0 {
			s.unlistHead(l.head, fresh)
		}
		if t = l.head; t != nil {
			break
		}
	}
	if t == nil {
		return v, 0, false
	}
	n := t.buckets[t.top()].head
	v, cost = n.v, n.cost
	s.Remove(now, Handle[T]{n: n, gen: n.gen}, ReasonClosed)
	return v, cost, true
}

// wideSum is an exact sum of costs (each in [1, MaxInt64]) for a gauge that
// goes down as well as up: saturated like the counters, it would stay wrong
// after the costs that passed MaxInt64 left; wrapped, it read negative.
type wideSum struct{ lo, hi uint64 }

func (w *wideSum) add(v int64) {
	var carry uint64
	w.lo, carry = bits.Add64(w.lo, uint64(v), 0)
	w.hi += carry
}

func (w *wideSum) sub(v int64) {
	var borrow uint64
	w.lo, borrow = bits.Sub64(w.lo, uint64(v), 0)
	w.hi -= borrow
}

// sat returns the sum, or MaxInt64 if it is beyond.
func (w wideSum) sat() int64 {
	if w.hi != 0 || w.lo > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(w.lo)
}

// satAdd returns a+b for b >= 0, saturated at MaxInt64.
func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
