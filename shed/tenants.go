package shed

import "time"

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

// sampleSize is how many tenants an eviction over MaxTenants compares.
const sampleSize = 8

// touch returns the state of tenant, creating it if needed, and stamps it as seen
// at the coarse clock. It touches only the tenant's own state, so its cost does
// not grow with the number of tenants; reclamation is lazy (see sweep).
func (s *Scheduler[T]) touch(name string) *tenantState[T] {
	t := s.tenants[name]
	if t == nil {
		t = &tenantState[T]{name: name, weight: s.cfg.weight(name), slot: len(s.all)}
		if p := s.cfg.priorities; p <= len(t.inline) {
			t.buckets = t.inline[:p]
		} else {
			t.buckets = make([]bucket[T], p)
		}
		s.tenants[name] = t
		s.all = append(s.all, t)
		if len(s.all) > s.cfg.maxTenants {
			s.evictOldest(t)
		}
	}
	t.lastSeen = s.coarse
	s.touches++
	if s.touches%sweepEvery == 0 {
		s.sweep()
	}
	return t
}

// sweep advances the reclamation hand by one slot, reclaiming the tenant there if
// it has nothing queued and was not seen for IdleTimeout.
func (s *Scheduler[T]) sweep() {
	if len(s.all) == 0 {
		return
	}
	if s.hand >= len(s.all) {
		s.hand = 0
	}
	t := s.all[s.hand]
	if t.list == notListed && s.coarse-t.lastSeen > s.cfg.idleTimeout {
		s.reclaim(t) // the last slot moved into hand: look at it next time
		return
	}
	s.hand++
}

// evictOldest reclaims, among sampleSize tenants from the hand on, the least
// recently seen one with nothing queued (sampled LRU, as Redis evicts), sparing
// keep.
func (s *Scheduler[T]) evictOldest(keep *tenantState[T]) {
	var victim *tenantState[T]
	for range sampleSize {
		if s.hand >= len(s.all) {
			s.hand = 0
		}
		t := s.all[s.hand]
		s.hand++
		if t == keep || t.list != notListed { // listed tenants may have queued requests
			continue
		}
		if victim == nil || t.lastSeen < victim.lastSeen {
			victim = t
		}
	}
	if victim != nil {
		s.reclaim(victim)
	}
}

// reclaim forgets t, which is on no drain list (so has nothing queued); its
// counts stay in the totals.
func (s *Scheduler[T]) reclaim(t *tenantState[T]) {
	last := s.all[len(s.all)-1]
	s.all[t.slot] = last
	last.slot = t.slot
	s.all[len(s.all)-1] = nil
	s.all = s.all[:len(s.all)-1]
	delete(s.tenants, t.name)
	s.reclaimed++
}

// observe advances the coarse clock used to stamp tenants.
func (s *Scheduler[T]) observe(at int64) {
	s.coarse = max(s.coarse, at)
}

// Stats returns the totals. InFlight and Limit are zero (the Scheduler does not
// know them).
func (s *Scheduler[T]) Stats() Stats {
	var b BucketStats
	s.total.fill(&b)
	return Stats{
		Admitted: b.Admitted, AdmittedCost: b.AdmittedCost,
		ShedBucketFull: b.ShedBucketFull, ShedQueueDeadline: b.ShedQueueDeadline, ShedOnArrival: b.ShedOnArrival,
		ShedClosed: b.ShedClosed, ShedNoCapacity: b.ShedNoCapacity,
		Canceled: b.Canceled, WaitCount: b.WaitCount, WaitTotal: b.WaitTotal,
		Queued: s.queued, QueuedCost: s.queuedCost,
		Tenants: len(s.tenants), Active: s.active, Reclaimed: s.reclaimed,
		OverShareByShed: s.overByShed, OverShareByLevel: s.overByLevel, ShareLevel: s.share.level,
	}
}

// Tenant appends the stats of tenant's buckets (one per priority, lowest first) to
// dst and returns it; it appends nothing for a tenant whose state is not kept.
func (s *Scheduler[T]) Tenant(dst []BucketStats, tenant string) []BucketStats {
	t := s.tenants[tenant]
	if t == nil {
		return dst
	}
	return t.appendStats(dst)
}

// Buckets appends the stats of every kept bucket to dst, in no particular order,
// and returns it.
func (s *Scheduler[T]) Buckets(dst []BucketStats) []BucketStats {
	for _, t := range s.all {
		dst = t.appendStats(dst)
	}
	return dst
}

func (t *tenantState[T]) appendStats(dst []BucketStats) []BucketStats {
	for p := range t.buckets {
		b := &t.buckets[p]
		bs := BucketStats{Tenant: t.name, Priority: p, Queued: b.n, QueuedCost: b.cost}
		b.c.fill(&bs)
		if p < len(t.fast) {
			bs.Admitted += t.fast[p].n
			bs.AdmittedCost += t.fast[p].cost
		}
		dst = append(dst, bs)
	}
	return dst
}

// Refuse records against its bucket a request refused without queueing, for
// instance with ReasonNoCapacity or ReasonClosed; reason zero counts it as
// canceled by its caller. It panics on a reason that is not one of the Reason
// constants.
func (s *Scheduler[T]) Refuse(now time.Time, tenant string, priority int, reason Reason) {
	mustReason(reason)
	s.observe(s.at(now))
	t := s.touch(tenant)
	b := &t.buckets[clamp(priority, len(t.buckets))]
	if reason == 0 {
		b.c.canceled++
		s.total.canceled++
		return
	}
	b.c.shed[reason]++
	s.total.shed[reason]++
}
