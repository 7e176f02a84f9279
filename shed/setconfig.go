package shed

import "math"

// SetConfig validates cfg and applies it, or returns an error wrapping
// [ErrInvalidConfig] and changes nothing. A lowered QueueDeadline or
// StandingDeadline applies to queued requests too: each one's deadline is cut
// to its enqueue time plus the new deadline of its kind (StandingDeadline if
// it joined a standing queue), but never before that of the request ahead of
// it in its bucket, so that deadlines still never decrease along a bucket; the
// requests now past their deadlines are shed (ReasonQueueDeadline) by the
// next [Scheduler.Expire], or when Pop meets them. A raised deadline applies
// to arrivals only: it never extends a queued request's.
// Tenant weights change immediately; bucket bounds apply to the next Push; a
// lower MaxTenants reclaims the tenants beyond it (see [Config.MaxTenants]); a
// lower OverShareWindow shortens the over-share marks already made, and a
// changed one keeps the share level's rate and restarts the share window at
// the latest time the Scheduler was given (see [Config.OverShareWindow]).
// Its cost grows with the Weights, the tenants ever marked over their share
// (when the window shrinks) and the requests queued (when a deadline is
// lowered), not with the tenants kept (see [Shedder.SetConfig]).
func (s *Scheduler[T]) SetConfig(cfg Config) error {
	_, err := s.setConfig(cfg)
	return err
}

// setConfig is SetConfig; cut reports that a deadline was lowered with
// requests queued, whose deadlines may now have passed. It visits only the
// tenants whose state may change: those whose weight differs between the old
// Weights and the new (a tenant named in neither has weight 1 in both), those
// ever marked over their share when the window shrinks, and the listed ones
// (every tenant with requests queued is listed) when deadlines are cut.
func (s *Scheduler[T]) setConfig(cfg Config) (cut bool, err error) {
	c, err := cfg.validate()
	if err != nil {
		return false, err
	}
	s.settle()
	cut = s.queued > 0 && (c.queueDeadline < s.cfg.queueDeadline || c.standingDeadline < s.cfg.standingDeadline)
	shorter := c.overShareWindow < s.cfg.overShareWindow
	s.rescale(c.overShareWindow)
	old := s.cfg
	s.cfg = c
	s.given = cfg.clone()
	s.evictOver(c.maxTenants, len(s.tenants.slots))
	s.reweigh(&old)
	if shorter {
		// Over its share for the new window from its last mark: a
		// tenant shed long ago is not held back for the rest of the old
		// one. (A longer window extends no mark.) A tenant never marked
		// has overUntil and overAt at MinInt64, which this leaves.
		for _, t := range s.marked {
			t.overUntil = min(t.overUntil, satAdd(t.overAt, c.overShareWindow))
		}
	}
	if cut {
		for _, l := range [...]*tenantList[T]{&s.fresh, &s.old} {
			for t := l.head; t != nil; t = t.rnext {
				if t.queued > 0 {
					s.cutDeadlines(t)
				}
			}
		}
	}
	return cut, nil
}

// reweigh sets the weight in force of each kept tenant whose weight differs
// between old's Weights and those in force; every other tenant has it already.
func (s *Scheduler[T]) reweigh(old *config) {
	for name := range s.cfg.weights {
		if w := s.cfg.weight(name); w != old.weight(name) {
			s.setWeight(name, w)
		}
	}
	for name, w := range old.weights {
		if _, ok := s.cfg.weights[name]; !ok && w != 1 {
			s.setWeight(name, 1)
		}
	}
}

// setWeight sets the weight of tenant name, if kept.
func (s *Scheduler[T]) setWeight(name string, w int64) {
	if sl := s.tenants.get(name); sl != nil {
		sl.t.weight = w
	}
}

// cutDeadlines lowers the deadline of each of t's queued requests to its
// enqueue time plus the deadline in force for it, if that is earlier, but not
// below the deadline of the request ahead of it: deadlines still never
// decrease along a bucket, and none is extended.
func (s *Scheduler[T]) cutDeadlines(t *tenantState[T]) {
	for p := range t.buckets {
		ahead := int64(math.MinInt64)
		for n := t.buckets[p].head; n != nil; n = n.next {
			d := s.cfg.queueDeadline
			if n.standing {
				d = s.cfg.standingDeadline
			}
			if dl := max(min(n.dl, satAdd(n.enq, d)), ahead); dl != n.dl {
				s.wheelUnlink(n)
				n.dl = dl
				s.wheelLink(n) // a slot a sweep has passed: the next one goes back to it
			}
			ahead = n.dl
		}
	}
}
