package shed

import "time"

// Removal from the queue: expiry at the queue deadline, a request's own
// removal (cancelled, shed), and taking a node from the free list
// (freelist.go).

// Expire sheds (ReasonQueueDeadline) every expired request, passing each to
// expired (which may be nil). Its cost is proportional to the requests it
// sheds and to those queued with deadlines in the millisecond slots it passes
// (a deadline wheel), not to the number of tenants.
func (s *Scheduler[T]) Expire(now time.Time, expired func(T)) {
	s.expire(s.at(now), expired)
}

// Remove takes the request of h out of its bucket and reports whether it was still
// queued. reason is counted as the request's shed reason; zero counts it as
// canceled by its caller. It panics on a reason that is not one of the Reason
// constants.
func (s *Scheduler[T]) Remove(now time.Time, h Handle[T], reason Reason) bool {
	mustReason(reason)
	n := h.n
	if n == nil || n.gen != h.gen {
		return false
	}
	at := s.at(now)
	if reason == 0 {
		n.t.counts[n.prio].canceled++
		s.total.canceled++
	} else {
		s.countShed(n.t, n.prio, reason, at)
	}
	s.unlink(n, at)
	return true
}

// expireHeads sheds the expired heads of t's buckets.
func (s *Scheduler[T]) expireHeads(t *tenantState[T], at int64, expired func(T)) {
	for p := range t.buckets {
		b := &t.buckets[p]
		for b.head != nil && b.head.dl < at {
			n := b.head
			v := n.v
			s.countShed(t, p, ReasonQueueDeadline, at)
			s.unlink(n, at)
			if expired != nil {
				expired(v)
			}
		}
	}
}

// countShed counts a request of t's bucket p shed for reason r at at; a shed
// for the bucket's bound or a deadline marks t over its share.
func (s *Scheduler[T]) countShed(t *tenantState[T], p int, r Reason, at int64) {
	t.counts[p].shed[r]++
	s.total.shed[r]++
	if r == ReasonBucketFull || r == ReasonQueueDeadline {
		s.markOver(t, at, false)
	}
}

// unlink removes n from its bucket, maintains the gauges, and frees n.
func (s *Scheduler[T]) unlink(n *node[T], at int64) {
	t := n.t
	b := &t.buckets[n.prio]
	s.wheelUnlink(n)
	if n.prev != nil {
		n.prev.next = n.next
	} else {
		b.head = n.next
	}
	if n.next != nil {
		n.next.prev = n.prev
	} else {
		b.tail = n.prev
	}
	b.n--
	b.cost -= n.cost
	if b.n == 0 {
		b.lastEmpty = at
	}
	if t.queued--; t.queued == 0 {
		s.active--
		// An emptied tenant's credit goes (as in DRR), whether its last
		// request was served or left unserved: credit gathered for a costly
		// head that was then canceled or expired would otherwise outlive it
		// and serve the tenant's next burst ahead of the others.
		t.deficit = 0
	}
	s.queued--
	s.queuedCost.sub(n.cost)
	// t stays listed even when empty: Pop unlists it when it reaches the head.
	s.freeNode(n, at)
}

func (s *Scheduler[T]) newNode() *node[T] {
	n := s.free
	if n != nil {
		s.free = n.next
		n.next = nil
		s.nfree--
	} else {
		n = new(node[T])
	}
	s.gen++
	n.gen = s.gen
	return n
}
