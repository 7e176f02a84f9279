package shed

import (
	"time"

	"github.com/tierkit/tierkit/internal/mapshrink"
)

// Free lists. The Scheduler recycles its queue nodes, and the Shedder its
// tickets, so that a steady load allocates nothing. A list keeps at most
// max(keepFree, the most items in use during the current and the previous
// window of keepWindow): a load that rises and falls within that span
// recycles everything, and two windows after a burst, at the next release of
// an item, the list falls back to what recent use needs, instead of keeping
// the burst's peak for the life of the process.

// keepFree is how many recycled items a free list keeps whatever the use.
const keepFree = 64

// keepWindow is the span over which a free list remembers the most items in
// use.
const keepWindow = int64(time.Second)

// keep tracks the bound of one free list.
type keep struct {
	cur, prev int   // the most items in use in the current window and in the previous one
	end       int64 // when the current window ends, in the Scheduler's time
}

// used records that n items are in use; call it when one is taken.
func (k *keep) used(n int) { k.cur = max(k.cur, n) }

// bound returns how many free items to keep with n in use at at, and starts
// a new window if at is past the current one's end, or before its start (the
// Scheduler's clock went back). After a whole window with no item released,
// the previous window's peak is taken to be n.
func (k *keep) bound(n int, at int64) int {
	if at >= k.end || at < k.end-keepWindow {
		k.prev = k.cur
		if at >= k.end+keepWindow {
			k.prev = n
		}
		k.cur, k.end = n, at+keepWindow
	}
	return max(keepFree, k.cur, k.prev)
}

// freeNode clears n (its gen becomes 0, so that its handles are stale) and
// recycles it, or leaves it to the GC when the free list holds its bound,
// cutting the list to the bound when that fell.
func (s *Scheduler[T]) freeNode(n *node[T], at int64) {
	*n = node[T]{}
	bound := keepFree
	if s.nfree >= keepFree { // under any bound, the window's bookkeeping can wait
		bound = s.keepNodes.bound(s.queued, at)
	}
	if s.nfree < bound {
		n.next = s.free
		s.free = n
		s.nfree++
		return
	}
	if s.nfree > bound {
		s.trimNodes(bound)
	}
}

// trimNodes cuts the free list to its first bound nodes (bound > 0), visiting
// the fewer of the nodes kept and the nodes dropped.
func (s *Scheduler[T]) trimNodes(bound int) {
	if drop := s.nfree - bound; drop <= bound {
		for range drop {
			f := s.free
			s.free, f.next = f.next, nil
		}
	} else {
		last := s.free
		for range bound - 1 {
			last = last.next
		}
		last.next = nil // the rest, linked among themselves, go to the GC
	}
	s.nfree = bound
}

// freeTicketLocked recycles a released ticket, or leaves it to the GC when
// the free list holds its bound, cutting the list to the bound when that
// fell; its array is then replaced by one of twice the bound if a quarter of
// it or less is used. The bound is on the coarse clock, which the fast path
// reads once per clockEvery admissions. A dropped ticket's release stays a
// no-op (it is not live). The caller has already counted tk out of s.tickets.
func (s *Shedder) freeTicketLocked(tk *ticket) {
	n, bound := len(s.free), keepFree
	if n >= keepFree { // under any bound, the window's bookkeeping can wait
		bound = s.keepTk.bound(s.tickets, s.sched.coarse)
	}
	if n < bound {
		s.free = append(s.free, tk)
		return
	}
	if n == bound {
		return
	}
	clear(s.free[bound:])
	s.free = s.free[:bound]
	// The rule the maps of batcher, cache and memkv shrink by: a quarter of
	// the peak (here the array's capacity) left.
	if mapshrink.Due(bound, cap(s.free), 4*keepFree) {
		s.free = append(make([]*ticket, 0, 2*bound), s.free...)
	}
}
