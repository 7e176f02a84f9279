package shed

import (
	"errors"
	"fmt"
	"maps"
	"time"
)

// Capacity is the source of the admission limit: the total cost that may be in
// flight at once. [Fixed] is a constant limit; an adaptive limiter (such as
// *aimd.Limiter, whose Limit is its current concurrency limit) satisfies it too.
// Limit is called on every admission decision, under the Shedder's lock, so it must
// be cheap and must not call back into the Shedder. If it panics, the lock is
// released before the panic goes on to the caller (a caller that recovers it
// finds the Shedder usable, with nothing half queued), but the call that read
// it stops there: a release or [Shedder.Kick] whose Limit panicked admits no
// queued request (the next one does). The Shedder's deadline sweep, which
// runs on a timer's goroutine when a queued request expires, reads it too:
// a panic there has no caller to recover it and ends the program, so a
// Limit that can panic is safe only where nothing ever queues. A limit below 1 counts as 1
// (and [Stats].Limit reads 1). A limit that drops below the cost in flight
// revokes nothing: no request is admitted until releases bring the cost in
// flight below it (see [Shedder.Kick] for a limit that grows).
type Capacity interface {
	Limit() int
}

// Fixed is a constant [Capacity].
type Fixed int

// Limit returns f.
func (f Fixed) Limit() int { return int(f) }

// CapacityFunc adapts a function to [Capacity].
type CapacityFunc func() int

// Limit returns f().
func (f CapacityFunc) Limit() int { return f() }

// Defaults applied to zero Config fields.
const (
	DefaultLimit            = 64
	DefaultPriorities       = 2
	DefaultQuantum          = 1
	DefaultMaxQueue         = 64
	DefaultMaxQueueCost     = 256
	DefaultQueueDeadline    = 100 * time.Millisecond
	DefaultStandingDeadline = 10 * time.Millisecond
	DefaultOverShareWindow  = time.Second
	DefaultMaxTenants       = 1 << 17
	DefaultIdleTimeout      = time.Minute
)

// Config holds the tunables of a [Shedder] and a [Scheduler]. A zero field means
// the documented default. All fields may be changed at runtime with SetConfig.
type Config struct {
	// Capacity is the admission limit (total cost in flight). If nil,
	// Fixed(DefaultLimit). A nil CapacityFunc (or a nil *CapacityFunc or
	// *Fixed) is refused with [ErrInvalidConfig]: its Limit would panic under
	// the Shedder's lock. Only the Shedder uses it; the Scheduler takes the
	// free capacity as an argument.
	Capacity Capacity

	// Priorities is the number of priority levels; a request's priority is in
	// [0, Priorities), larger is more important, and out-of-range values are
	// clamped. Default 2. Changing it at runtime applies to tenants created after.
	Priorities int

	// Quantum is the cost credit a tenant of weight 1 receives per round of the
	// deficit round robin. A smaller quantum is fairer at fine grain; one near the
	// typical request cost needs fewer rounds per decision. Default 1.
	Quantum int64

	// Weights gives tenants a share proportional to their weight (default 1 for a
	// tenant not listed). The map is copied.
	Weights map[string]int

	// MaxQueue bounds the requests waiting in one (tenant, priority) bucket;
	// beyond it new requests are shed with ReasonBucketFull. Default 64.
	MaxQueue int

	// MaxQueueCost bounds the cost waiting in one bucket. A request costlier than
	// the bound is still queued when its bucket is empty. Default 256.
	MaxQueueCost int64

	// QueueDeadline is the longest a request may wait in a bucket that emptied
	// within the last QueueDeadline. Default 100ms. Lowering it at runtime
	// (or StandingDeadline) applies at once to the requests already queued:
	// one queued longer than the new deadline is shed at the next sweep (a
	// [Shedder]: before SetConfig returns), unless the request ahead of it in
	// its bucket holds a later deadline: deadlines never decrease along a
	// bucket, so it waits until that one's. Raising it extends no queued
	// request's deadline (see [Scheduler.SetConfig]).
	QueueDeadline time.Duration

	// StandingDeadline is the queue deadline of a request of a tenant over its
	// share (see OverShareWindow) that joins a bucket which has not been empty
	// for the last QueueDeadline: a standing queue, as CoDel and "Fail at
	// Scale" (Maurer, ACM Queue 2015) define it. A flooding tenant then sheds
	// fast while a bursty one, or one under its share, keeps the long deadline. Must not
	// exceed QueueDeadline; set both equal to disable. Default 10ms (capped at
	// QueueDeadline).
	StandingDeadline time.Duration

	// OverShareWindow is how long a tenant that had a request shed (bucket
	// full or queue deadline), or that was served more than the share level
	// within a window of this length (see [Scheduler]), counts as over its
	// share: meanwhile it is served after every tenant that is not, and
	// StandingDeadline applies to it. A tenant neither shed nor served past
	// the level for this long is under its share: it is served first and
	// always gets QueueDeadline. A SetConfig that lowers it applies at once
	// to the tenants already marked: each counts as over its share until the
	// new window has passed since its last mark. One that raises it extends
	// no mark already made. One that changes it keeps the share level's rate
	// (ShedOnArrival and the marks on the level read the same rate as
	// before): the level, a cost per window, is scaled to the new length
	// (its cost per the weight of the tenant it was measured on, rounded
	// down but at least 1 if it was positive), and the current window
	// restarts at the latest time the Scheduler was given (a request's arrival,
	// admission, refusal or service; a Shedder's SetConfig reads the clock),
	// so that the next level is measured over the new length. What tenants
	// were served in the window in progress no longer counts toward the
	// next level or against the current one. Default 1s.
	OverShareWindow time.Duration

	// FreshArrivalOrder serves the tenants under their share (the fresh list)
	// nearly in arrival order: a visit serves every request the tenant had
	// queued when the visit began, instead of one quantum. After a capacity
	// dip (a stall, a GC cycle, a cut of an adaptive limit) the requests of
	// tenants under their share then wait about as long as the dip, where by
	// default a tenant with k requests queued waits k rounds of the fresh list
	// for its last one (the largest normal tenants are shed first). The cost
	// is fairness among tenants under their share: within the current window
	// a burst is served whole, until the share level marks its tenant over
	// (see OverShareWindow). Default false.
	FreshArrivalOrder bool

	// ShedOnArrival sheds a request when it arrives, instead of at its
	// deadline, if it would wait past its deadline: when its tenant is over
	// its share, its bucket holds a standing queue (StandingDeadline applies),
	// and at the share level (the most cost per unit of weight a backlogged
	// tenant over its share was served in the previous OverShareWindow, times
	// the tenant's weight) the
	// cost queued ahead of it would not drain before its deadline. A window
	// is closed by the first serve after its end, so while nothing is served
	// (a stall across a window's end) the level is still the one measured
	// in the window before the one that ended unserved. It is
	// shed with ReasonQueueDeadline and counted in ShedOnArrival too. A flood
	// then costs a bucket-full decision per excess request rather than a
	// queued wait and a deadline sweep; tenants under their share are never
	// affected. Default false.
	//
	// NOTE: the cost queued ahead counts in full, also that of requests that
	// will expire before they are served: the backlog a bucket took with
	// QueueDeadline before it stood, when that is more than the tenant
	// drains at the level in a QueueDeadline (MaxQueueCost 256 at about 1
	// per ms, for a flood of low weight). Its tenant's arrivals are then
	// shed until that backlog expires, the queue runs dry, and the tenant
	// loses its credit (gathered for a costly head) and its service until
	// its next arrival; then its bucket fills again, with QueueDeadline as it
	// no longer stands. Without ShedOnArrival the arrivals of the backlog's
	// last StandingDeadline outlive it, and the queue does not run dry. The
	// bound of the drain order (see [Scheduler]) holds only while a tenant's
	// queue does not empty, so such a flood falls steadily behind its
	// weighted share: in TestShedOnArrivalWeightOneFloodShare (floods of
	// weights 1 to 8 at 3 to 10 times their share, costs 1-8, the default
	// bounds and deadlines) the weight-1 floods got 0.5-1.3% less than their
	// share over 2 s (17 per unit of weight on average, against the bound's
	// 9), where without ShedOnArrival, or with requests of cost 1, every
	// flood got its share within the bound.
	ShedOnArrival bool

	// MaxTenants bounds the tenants whose state (deficit, stats) is kept. When a
	// new tenant arrives beyond it, the least recently seen of 8 sampled tenants
	// with nothing queued and on no drain list is reclaimed (sampled LRU),
	// sampled among at most 256 slots of the tenant table: if none of them
	// holds such a tenant (when nearly every kept tenant has requests queued),
	// the new tenant is kept beyond MaxTenants, and a later arrival evicts
	// for it. A tenant whose queue emptied stays on its drain list until Pop reaches it
	// (or finds nothing queued; a [Shedder] calls it once its queue empties,
	// however it emptied), so until then more than MaxTenants may be kept.
	// A SetConfig that lowers it reclaims the tenants beyond it at once, but
	// those on a drain list, which new tenants evict once they are off it.
	// Default 131,072.
	MaxTenants int

	// IdleTimeout reclaims the state of a tenant with nothing queued that has not
	// been seen for this long. A tenant is seen when a request of its arrives
	// (admitted, queued or refused), not when a queued one is served or
	// released: a tenant with requests queued is never reclaimed, however
	// long they wait, but one whose last request waited longer than
	// IdleTimeout (possible when IdleTimeout is below QueueDeadline) may be
	// reclaimed as soon as that request is served. Reclaiming loses only the
	// tenant's own stats (the totals keep its counts), its over-share mark,
	// and the cost it was served in the current share window (see
	// [Config.OverShareWindow]): back within that window, it may be served up
	// to the share level again before it counts as over its share. Its
	// deficit is zero once it has nothing queued, and admitted work holds
	// capacity, not tenant state. It is checked lazily: a hand visits one tenant every
	// 16 decisions (it skips up to 7 empty slots of the tenant table to find
	// one), and tenants are stamped with a coarse clock that the Shedder reads
	// once every 64 fast-path admissions (with more than about 49,000 tenants,
	// when their bookkeeping is applied, up to 64 admissions later), so
	// reclamation can come early or late by that much; the stamps count in
	// units of 2^20 ns (about a millisecond), and the timeout is rounded up to
	// one. At most about 26 days (2^51 ns): a longer timeout acts as that.
	// Default 1 minute.
	IdleTimeout time.Duration
}

// config is a validated Config with defaults applied.
type config struct {
	capacity         Capacity
	priorities       int
	quantum          int64
	weights          map[string]int
	maxQueue         int
	maxQueueCost     int64
	queueDeadline    int64
	standingDeadline int64
	overShareWindow  int64
	freshArrival     bool
	shedOnArrival    bool
	maxTenants       int
	idleStamps       stamp // IdleTimeout in stamp units, rounded up
}

// clone returns c with a copy of its Weights map.
func (c Config) clone() Config {
	c.Weights = maps.Clone(c.Weights)
	return c
}

// validate applies the defaults to c, or reports every field out of range, as
// an errors.Join of errors that each wrap [ErrInvalidConfig].
func (c Config) validate() (config, error) {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("shed: "+format+": %w", append(args, ErrInvalidConfig)...))
	}
	if nilCapacity(c.Capacity) {
		bad("Capacity is a nil %T", c.Capacity)
	}
	if c.Priorities < 0 || c.Priorities > 64 {
		bad("Priorities %d not in [0, 64]", c.Priorities)
	}
	if c.Quantum < 0 {
		bad("Quantum %d is negative", c.Quantum)
	}
	if c.MaxQueue < 0 {
		bad("MaxQueue %d is negative", c.MaxQueue)
	}
	if c.MaxQueueCost < 0 {
		bad("MaxQueueCost %d is negative", c.MaxQueueCost)
	}
	if c.QueueDeadline < 0 {
		bad("QueueDeadline %v is negative", c.QueueDeadline)
	}
	if c.StandingDeadline < 0 {
		bad("StandingDeadline %v is negative", c.StandingDeadline)
	}
	// Against the QueueDeadline in force: zero means its default, which a
	// StandingDeadline above it contradicts as much as an explicit one. (A
	// negative QueueDeadline is reported above, once.)
	if qd := or(c.QueueDeadline, DefaultQueueDeadline); qd >= 0 && c.StandingDeadline > qd {
		bad("StandingDeadline %v exceeds QueueDeadline %v", c.StandingDeadline, qd)
	}
	if c.OverShareWindow < 0 {
		bad("OverShareWindow %v is negative", c.OverShareWindow)
	}
	if c.MaxTenants < 0 {
		bad("MaxTenants %d is negative", c.MaxTenants)
	}
	if c.IdleTimeout < 0 {
		bad("IdleTimeout %v is negative", c.IdleTimeout)
	}
	for t, w := range c.Weights {
		if w < 1 {
			bad("weight %d of tenant %q is below 1", w, t)
		}
	}
	if len(errs) > 0 {
		return config{}, errors.Join(errs...)
	}
	v := config{
		capacity:         c.Capacity,
		priorities:       or(c.Priorities, DefaultPriorities),
		quantum:          or(c.Quantum, DefaultQuantum),
		weights:          maps.Clone(c.Weights),
		maxQueue:         or(c.MaxQueue, DefaultMaxQueue),
		maxQueueCost:     or(c.MaxQueueCost, DefaultMaxQueueCost),
		queueDeadline:    int64(or(c.QueueDeadline, DefaultQueueDeadline)),
		standingDeadline: int64(or(c.StandingDeadline, DefaultStandingDeadline)),
		overShareWindow:  int64(or(c.OverShareWindow, DefaultOverShareWindow)),
		freshArrival:     c.FreshArrivalOrder,
		shedOnArrival:    c.ShedOnArrival,
		maxTenants:       or(c.MaxTenants, DefaultMaxTenants),
		idleStamps:       idleStamps(or(c.IdleTimeout, DefaultIdleTimeout)),
	}
	if v.capacity == nil {
		v.capacity = Fixed(DefaultLimit)
	}
	v.standingDeadline = min(v.standingDeadline, v.queueDeadline)
	return v, nil
}

// nilCapacity reports a Capacity that is not nil but would panic on its first
// Limit call, under the Shedder's lock: a nil CapacityFunc, or a nil pointer to
// one of this package's Capacity types. (A nil pointer of another type is not
// detected: its Limit may well handle a nil receiver.)
func nilCapacity(c Capacity) bool {
	switch c := c.(type) {
	case CapacityFunc:
		return c == nil
	case *CapacityFunc:
		return c == nil || *c == nil
	case *Fixed:
		return c == nil
	}
	return false
}

func or[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

func (c *config) weight(tenant string) int64 {
	if w, ok := c.weights[tenant]; ok {
		return int64(w)
	}
	return 1
}

// idleStamps returns d in stamp units, rounded up, at most maxIdleTimeout's.
func idleStamps(d time.Duration) stamp {
	d = min(d, maxIdleTimeout)
	return stamp((int64(d) + 1<<20 - 1) >> 20)
}
