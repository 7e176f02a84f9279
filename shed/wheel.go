package shed

import "math"

// The deadline wheel: every queued request is also on the list of the wheel
// slot of its deadline, so that a deadline sweep visits the requests whose
// deadlines have passed rather than every listed tenant. A sweep used to walk
// all listed tenants, and re-armed for the earliest head's deadline, usually a
// few milliseconds away: with 100,000 tenants queued, a walk took several
// milliseconds, and the sweeps came back to back.

const (
	wheelShift = 20 // a slot spans 2^20 ns, about 1 ms
	wheelSlots = 1024
	wheelMask  = wheelSlots - 1
)

// wheelLink puts n, whose deadline is set, on its slot's list. A deadline in
// a slot that a sweep has passed (a caller's clock that went back) moves the
// next sweep's start back to it.
func (s *Scheduler[T]) wheelLink(n *node[T]) {
	abs := n.dl >> wheelShift
	s.swept = min(s.swept, abs)
	slot := &s.wheel[abs&wheelMask]
	n.wnext, n.wprev = *slot, nil
	if *slot != nil {
		(*slot).wprev = n
	}
	*slot = n
}

// wheelUnlink takes n off its slot's list.
func (s *Scheduler[T]) wheelUnlink(n *node[T]) {
	if n.wprev != nil {
		n.wprev.wnext = n.wnext
	} else {
		s.wheel[(n.dl>>wheelShift)&wheelMask] = n.wnext
	}
	if n.wnext != nil {
		n.wnext.wprev = n.wprev
	}
}

// expire sheds (ReasonQueueDeadline) every queued request whose deadline is
// before at, with every request ahead of it in its bucket (their deadlines are
// no later), and returns the earliest deadline left, false if nothing is
// queued. It visits the wheel's slots from the last sweep's to at's and the
// requests on them, then the slots up to the first that holds a deadline of
// the current round.
func (s *Scheduler[T]) expire(at int64, expired func(T)) (next int64, ok bool) {
	last := at >> wheelShift
	first := max(s.swept, last-wheelSlots+1)
	for abs := first; abs <= last; abs++ {
		due := s.dueTenants[:0]
		for n := s.wheel[abs&wheelMask]; n != nil; n = n.wnext {
			if n.dl < at {
				due = append(due, n.t)
			}
		}
		for _, t := range due { // a tenant twice: the second finds nothing
			s.expireHeads(t, at, expired)
		}
		clear(due)
		s.dueTenants = due[:0]
	}
	s.swept = last
	if s.queued == 0 {
		return 0, false
	}
	return s.earliest(last), true
}

// earliest returns the earliest deadline of a queued request (there is one),
// looking from slot from on.
func (s *Scheduler[T]) earliest(from int64) int64 {
	for abs := from; abs < from+wheelSlots; abs++ {
		best := int64(math.MaxInt64)
		for n := s.wheel[abs&wheelMask]; n != nil; n = n.wnext {
			if n.dl>>wheelShift == abs {
				best = min(best, n.dl)
			}
		}
		if best != math.MaxInt64 {
			return best
		}
	}
	// Every deadline is a wheel's turn or more away (a queue deadline over
	// about a second): look at them all.
	best := int64(math.MaxInt64)
	for i := range s.wheel { // by index: ranging over the array copied it (8 KiB) to the stack
		for n := s.wheel[i]; n != nil; n = n.wnext {
			best = min(best, n.dl)
		}
	}
	return best
}
