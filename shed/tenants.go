package shed

import (
	"math"
	"time"
)

// tenantList is an intrusive doubly linked list of tenants (a drain list).
type tenantList[T any] struct {
	head, tail *tenantState[T]
	n          int
}

func (l *tenantList[T]) pushBack(t *tenantState[T]) {
	t.rnext, t.rprev = nil, l.tail
	if l.tail != nil {
		l.tail.rnext = t
	} else {
		l.head = t
	}
	l.tail = t
	l.n++
}

func (l *tenantList[T]) remove(t *tenantState[T]) {
	if t.rprev != nil {
		t.rprev.rnext = t.rnext
	} else {
		l.head = t.rnext
	}
	if t.rnext != nil {
		t.rnext.rprev = t.rprev
	} else {
		l.tail = t.rprev
	}
	t.rnext, t.rprev = nil, nil
	l.n--
}

// sweepEvery is how many touches pass between two steps of the reclamation hand.
const sweepEvery = 16

// sweepProbe is how many slots one step of the hand looks at, at most, for a
// kept tenant (the table is at most 3/4 full, and at least 1/8 full at the start
// of a pass).
const sweepProbe = 8

// sampleSize is how many tenants an eviction over MaxTenants compares.
const sampleSize = 8

// touch returns the slot of tenant name, creating the tenant if needed, and
// stamps it as seen at the coarse clock. It touches only that slot, so its cost
// does not grow with the number of tenants; reclamation is lazy (see sweep).
// The slot is valid until the next tenant is created or reclaimed.
func (s *Scheduler[T]) touch(name string) *tenantSlot[T] {
	return s.touchHashed(name, s.tenants.hash(name))
}

// touchHashed is touch with the name's hash.
func (s *Scheduler[T]) touchHashed(name string, h uint32) *tenantSlot[T] {
	sl := s.stamp(name, h)
	if s.sweepTurn() && s.sweep() {
		i, _ := s.tenants.find(name, h) // the sweep moved slots; name is fresh, so kept
		sl = &s.tenants.slots[i]
	}
	return sl
}

// stamp is touchHashed without the reclamation hand's step: it returns the
// slot of tenant name, creating the tenant if needed, stamped as seen.
func (s *Scheduler[T]) stamp(name string, h uint32) *tenantSlot[T] {
	i, ok := s.tenants.find(name, h)
	sl := &s.tenants.slots[i]
	if !ok {
		sl = s.create(name, h)
	}
	sl.seen = stampOf(s.coarse)
	return sl
}

// sweepTurn counts a touch and reports whether the reclamation hand steps
// at this one (every sweepEvery touches).
func (s *Scheduler[T]) sweepTurn() bool {
	s.touches++
	return s.touches%sweepEvery == 0
}

// create adds the state of tenant name, evicting first while the table holds
// MaxTenants (more than one tenant after a SetConfig lowered it while
// tenants it could not reclaim had requests queued).
func (s *Scheduler[T]) create(name string, h uint32) *tenantSlot[T] {
	s.evictOver(s.cfg.maxTenants-1, evictProbe)
	// Never shed: under its share at any time, before the epoch too (a
	// caller's clock that stepped back gives a negative one).
	t := &tenantState[T]{name: name, weight: s.cfg.weight(name), overUntil: math.MinInt64, overAt: math.MinInt64}
	if p := s.cfg.priorities; p <= len(t.inline) {
		t.buckets, t.counts = t.inline[:p], t.inlineCounts[:p]
	} else {
		t.buckets, t.counts = make([]bucket[T], p), make([]counters, p)
	}
	return s.tenants.insert(name, h, t)
}

// state returns the state of tenant name, creating it if needed, after the
// deferred admissions.
func (s *Scheduler[T]) state(name string) *tenantState[T] {
	s.settle()
	return s.touch(name).t
}

// pendingAdmit is a direct admission whose tenant bookkeeping (creating the
// tenant, stamping it, counting the admission in its bucket) is deferred.
type pendingAdmit struct {
	name string
	h    uint32
	prio int
	cost int64
}

// admitLog is how many direct admissions wait for settle at most.
const admitLog = 64

// directSlots is the largest table (in slots of 32 bytes: 2 MiB, up to about
// 49,000 tenants) whose admissions are counted at once rather than deferred to
// settle: such a table mostly stays in the CPU caches, where deferring only
// adds work (about 10 ns an admission).
const directSlots = 1 << 16

// settle applies the deferred admissions. With many tenants, each admission's
// slot is a cache (and TLB) miss, and one admission at a time the misses run in
// series, each lookup waiting for the previous admission's bookkeeping. Here a
// first pass hashes the names, and a second only loads their home slots, with
// nothing depending on the loads but a sum: a few instructions a load, so the
// processor's window of instructions in flight holds many of them and
// overlaps their misses (with the hashing in the same loop it held a handful:
// 17% slower at 100,000 tenants in a random order, bench/shed/README.md); the
// third does the bookkeeping on lines now in the cache.
func (s *Scheduler[T]) settle() {
	pend := s.pend[:s.npend]
	if len(pend) == 0 {
		return
	}
	s.npend = 0
	sink := s.sink
	slots, mask := s.tenants.slots, s.tenants.mask
	for i := range pend {
		pend[i].h = s.tenants.hash(pend[i].name)
	}
	for i := range pend {
		sink += slots[pend[i].h&mask].h
	}
	s.sink = sink
	for i := range pend {
		pa := &pend[i]
		s.count(s.touchHashed(pa.name, pa.h), pa.prio, pa.cost)
	}
	clear(pend) // keep no caller's name past its bookkeeping
}

// count counts a direct admission in the tenant's slot (priorities below
// lanes, so without reading its state) or in its bucket.
func (s *Scheduler[T]) count(sl *tenantSlot[T], priority int, cost int64) {
	if priority < lanes {
		sl.admit(max(priority, 0), cost)
		return
	}
	t := sl.t
	p := clamp(priority, len(t.buckets))
	t.counts[p].admitted++
	t.counts[p].admittedCost = satAdd(t.counts[p].admittedCost, cost)
}

// sweep advances the reclamation hand over up to sweepProbe slots, to the next
// kept tenant, and reclaims that tenant if it has nothing queued and was not seen
// for IdleTimeout. Between two passes it lets the table shrink. It reports
// whether it moved slots.
func (s *Scheduler[T]) sweep() (moved bool) {
	for range sweepProbe {
		if s.hand >= len(s.tenants.slots) {
			moved = s.wrapHand() || moved
		}
		sl := &s.tenants.slots[s.hand]
		if sl.h == 0 {
			s.hand++
			continue
		}
		if s.age(sl) > s.cfg.idleStamps && sl.t.list == notListed {
			s.reclaim(s.hand) // the next slot of the run moved into hand: look at it next time
			return true
		}
		s.hand++
		break
	}
	return moved
}

// wrapHand starts a new pass of the hand over the tenant table, letting the
// table shrink between two passes, and reports whether that moved slots. Both
// the reclamation hand and the evictions wrap it here: when only the sweep
// shrank the table, the evictions, which step the same hand 256 slots at a
// time, nearly always wrapped it first, so a table left sparse (after a burst
// of queued tenants, or a SetConfig that lowered MaxTenants) never shrank, and
// an eviction's probes then so often met no tenant that a new tenant was kept
// beyond MaxTenants: 500 were kept with MaxTenants 100.
func (s *Scheduler[T]) wrapHand() (moved bool) {
	s.hand = 0
	n := len(s.tenants.slots)
	s.tenants.shrink()
	return len(s.tenants.slots) != n
}

// evictOver evicts tenants (evictOldest, looking at up to probes slots for
// each) until at most n are kept or none is found.
func (s *Scheduler[T]) evictOver(n, probes int) {
	for s.tenants.n > n && s.evictOldest(probes) {
	}
}

// evictProbe is how many slots a new tenant's eviction looks at, at most: with
// more tenants queued than MaxTenants, few or none can be evicted, and a look
// at every slot for each new tenant took its cost (under the Shedder's lock)
// from microseconds to hundreds with 20,000 tenants queued.
const evictProbe = 256

// evictOldest reclaims, among sampleSize kept tenants from the hand on (in up
// to probes slots), the least recently seen one with nothing queued (sampled
// LRU, as Redis evicts), and reports whether it found one.
func (s *Scheduler[T]) evictOldest(probes int) bool {
	if s.tenants.n == s.fresh.n+s.old.n {
		return false // every kept tenant is listed (and a listed one is kept)
	}
	slots := s.tenants.slots
	probes = min(probes, len(slots))
	victim := -1
	for seen, probed := 0, 0; seen < sampleSize && probed < probes; probed++ {
		if s.hand >= len(slots) {
			// The sample goes on from the table's start. Wrapping may
			// shrink the table, which moves the slots: the candidate is
			// found again by its key. (Ending the sample here, as this
			// did, evicted the table's last tenant, however recently
			// seen, when the hand had just reached it.)
			var key string
			var h uint32
			if victim >= 0 {
				key, h = slots[victim].key(), slots[victim].h
			}
			if s.wrapHand() && victim >= 0 {
				victim, _ = s.tenants.find(key, h)
			}
			slots = s.tenants.slots
		}
		i := s.hand
		s.hand++
		sl := &slots[i]
		if sl.h == 0 {
			continue
		}
		if sl.t.list != notListed { // listed tenants may have queued requests
			continue
		}
		seen++
		if victim < 0 || s.age(sl) > s.age(&slots[victim]) {
			victim = i
		}
	}
	if victim < 0 {
		return false
	}
	s.reclaim(victim)
	return true
}

// age returns how long ago, in stamp units, the tenant in sl was last seen.
func (s *Scheduler[T]) age(sl *tenantSlot[T]) stamp { return stampOf(s.coarse) - sl.seen }

// reclaim forgets the tenant in slot i, which is on no drain list (so has
// nothing queued); its counts stay in the totals. (Its list was just read,
// so reading marked, on the same cache line, costs no miss.)
func (s *Scheduler[T]) reclaim(i int) {
	if t := s.tenants.slots[i].t; t.marked != 0 {
		s.unmark(t)
	}
	s.tenants.remove(i)
	s.reclaimed++
}

// unmark takes t out of marked, moving the last one into its place. Once
// marked holds a quarter of its backing array or less, it moves to one of
// twice its length (the order kept, so every index stays), so that a burst
// of tenants marked and then reclaimed does not keep the peak's array.
func (s *Scheduler[T]) unmark(t *tenantState[T]) {
	i, last := t.marked-1, len(s.marked)-1
	s.marked[i] = s.marked[last]
	s.marked[i].marked = i + 1
	s.marked[last] = nil
	s.marked = s.marked[:last]
	t.marked = 0
	if c := cap(s.marked); c > minMarkedCap && last <= c/4 {
		s.marked = append(make([]*tenantState[T], 0, max(2*last, minMarkedCap)), s.marked...)
	}
}

// minMarkedCap is the backing array of marked that unmark does not shrink.
const minMarkedCap = 64

// observe advances the coarse clock used to stamp tenants.
func (s *Scheduler[T]) observe(at int64) {
	s.coarse = max(s.coarse, at)
}

// Stats returns the totals. InFlight and Limit are zero (the Scheduler does not
// know them).
func (s *Scheduler[T]) Stats() Stats {
	s.settle()
	var b BucketStats
	s.total.fill(&b)
	return Stats{
		Admitted: b.Admitted, AdmittedCost: b.AdmittedCost,
		ShedBucketFull: b.ShedBucketFull, ShedQueueDeadline: b.ShedQueueDeadline, ShedOnArrival: b.ShedOnArrival,
		ShedClosed: b.ShedClosed, ShedNoCapacity: b.ShedNoCapacity,
		Canceled: b.Canceled, WaitCount: b.WaitCount, WaitTotal: b.WaitTotal,
		Queued: s.queued, QueuedCost: s.queuedCost.sat(),
		Tenants: s.tenants.n, Active: s.active, Reclaimed: s.reclaimed,
		OverShareByShed: s.overByShed, OverShareByLevel: s.overByLevel, ShareLevel: wholeLevel(s.levelAt(s.coarse)),
	}
}

// Tenant appends the stats of tenant's buckets (one per priority, lowest first) to
// dst and returns it; it appends nothing for a tenant whose state is not kept.
func (s *Scheduler[T]) Tenant(dst []BucketStats, tenant string) []BucketStats {
	s.settle()
	sl := s.tenants.get(tenant)
	if sl == nil {
		return dst
	}
	return sl.appendStats(dst)
}

// Buckets appends the stats of every kept bucket to dst, in no particular order,
// and returns it.
func (s *Scheduler[T]) Buckets(dst []BucketStats) []BucketStats {
	s.settle()
	for i := range s.tenants.slots {
		if sl := &s.tenants.slots[i]; sl.h != 0 {
			dst = sl.appendStats(dst)
		}
	}
	return dst
}

func (sl *tenantSlot[T]) appendStats(dst []BucketStats) []BucketStats {
	t := sl.t
	for p := range t.buckets {
		b := &t.buckets[p]
		bs := BucketStats{Tenant: t.name, Priority: p, Queued: b.n, QueuedCost: b.cost}
		t.counts[p].fill(&bs)
		for l := range lanes { // a lane counts in the bucket its priority clamps to
			if min(l, len(t.buckets)-1) == p {
				n, cost := sl.admitted(l)
				bs.Admitted += n
				bs.AdmittedCost = satAdd(bs.AdmittedCost, cost)
			}
		}
		dst = append(dst, bs)
	}
	return dst
}

// Refuse records against its bucket a request refused without queueing, for
// instance with ReasonNoCapacity or ReasonClosed; reason zero counts it as
// canceled by its caller. A refusal with ReasonBucketFull or
// ReasonQueueDeadline is a shed like any other: it marks the tenant over its
// share, as [Scheduler.Remove] with that reason does. It panics on a reason
// that is not one of the Reason constants.
func (s *Scheduler[T]) Refuse(now time.Time, tenant string, priority int, reason Reason) {
	mustReason(reason)
	at := s.at(now)
	s.observe(at)
	t := s.state(tenant)
	p := clamp(priority, len(t.buckets))
	if reason == 0 {
		t.counts[p].canceled++
		s.total.canceled++
		return
	}
	s.countShed(t, p, reason, at)
}
