package shed

import "math"

// Moving tenants on and off the two drain lists (the fresh and the old, see
// Scheduler's "Drain order"): listing a tenant that gets a request, taking
// an emptied tenant off, requeueing one whose turn ended, emptying both, and
// skipping the rounds that cannot serve anyone. The list itself (tenantList) is in tenants.go.

// The drain list a tenant is on.
const (
	notListed uint8 = iota
	inFresh
	inOld
)

// listOnPush puts t, which just got a request at at, on the drain list its
// share says. A tenant that was not listed joins the fresh list (the old list
// if it is over its share) with one quantum of credit. A tenant on the old
// list whose mark has run out is under its share: it moves to the back of the
// fresh list, with one quantum of credit if it had emptied. Left on
// the old list, which is served only when the fresh list is empty, it waited
// for as long as the tenants under their share stayed backlogged, its
// requests expired, and each expiry marked it over its share again.
func (s *Scheduler[T]) listOnPush(t *tenantState[T], at int64) {
	switch {
	case t.list == notListed:
		t.deficit, t.inTurn, t.visiting = sat(s.cfg.quantum, t.weight), true, false
		if t.over(at) {
			t.list = inOld
			s.old.pushBack(t)
		} else {
			t.list = inFresh
			s.fresh.pushBack(t)
		}
	case t.list == inOld && !t.over(at):
		s.old.remove(t)
		s.fresh.pushBack(t)
		t.list, t.visiting = inFresh, false
		if t.queued == 1 {
			t.deficit, t.inTurn = sat(s.cfg.quantum, t.weight), true
		}
	}
}

// unlistHead takes t, empty, off the head of its list; its credit resets.
func (s *Scheduler[T]) unlistHead(t *tenantState[T], fresh bool) {
	if fresh {
		s.fresh.remove(t)
	} else {
		s.old.remove(t)
	}
	t.list, t.inTurn, t.visiting, t.deficit = notListed, false, false, 0
}

// requeue moves t, whose turn ended, from the head of its list to the tail of
// the old list if it is over its share at at, else of the fresh list.
func (s *Scheduler[T]) requeue(t *tenantState[T], fresh bool, at int64) {
	if fresh {
		s.fresh.remove(t)
	} else {
		s.old.remove(t)
	}
	if t.over(at) {
		s.old.pushBack(t)
		t.list = inOld
	} else {
		s.fresh.pushBack(t)
		t.list = inFresh
	}
}

// unlistAll empties both lists once nothing is queued.
func (s *Scheduler[T]) unlistAll() {
	for _, l := range []*tenantList[T]{&s.fresh, &s.old} {
		for l.head != nil {
			t := l.head
			l.remove(t)
			t.list, t.inTurn, t.visiting, t.deficit = notListed, false, false, 0
		}
	}
}

// noSkipRounds turns skipRounds off, for the test that checks it changes no
// decision.
var noSkipRounds = false

// spinHook, if set, is called by spun: a test counts Pop's visits that
// served nobody.
var spinHook func()

// spun follows requeue in Pop, after a visit of t, at the head of the list
// Pop serves (the fresh list if fresh, else the old), that ended t's turn
// without serving it, and returns the new count of such visits, spins. It
// counts those that sent their tenant to the back of the same list, since
// Pop began serving that list or since the last skip; once there are as many
// as the list holds tenants, every tenant on it has had such a visit: the
// list is a queue that does not grow while it is served, and while a tenant
// on it has not been visited, every tenant counted is behind it and still
// on the list, so the list is longer than the count. Each of them then waits,
// without credit, for quanta that do not cover its head, and skipRounds
// grants at once the rounds that would serve nobody (a costly request with a
// small quantum took cost/quantum rounds, one at a time). The visits that
// move a tenant to the other list are not counted: counted, they let the
// skip come before every tenant had its visit. Counted against the lengths
// of both lists, as before, a costly head on the fresh list was visited once
// per tenant of the old list first, under the Shedder's lock
// (BenchmarkPopCostlyHead).
//
// With FreshArrivalOrder the fresh list takes twice its length: a visit
// that goes on with one begun in an earlier Pop serves only what was queued
// when that one began, the next visit begins at now, and only a visit begun
// at now shows that the next would not serve the tenant either. While a
// tenant on the list has had at most one visit, every other one has had at
// most two (one before its first, one between, one after), so a count of
// twice the length means that every tenant has had two.
func (s *Scheduler[T]) spun(t *tenantState[T], fresh bool, spins int) int {
	if spinHook != nil {
		spinHook()
	}
	l, on, rounds := &s.fresh, inFresh, 1
	if !fresh {
		l, on = &s.old, inOld
	} else if s.cfg.freshArrival {
		rounds = 2
	}
	if t.list != on || noSkipRounds {
		return spins
	}
	if spins++; spins >= rounds*l.n {
		s.skipRounds()
		return 0
	}
	return spins
}

// skipRounds adds to every tenant of the list Pop serves (fresh if any) the
// quanta of the rounds that would pass before the first of them could serve
// its head: exactly what visiting them round after round would add.
func (s *Scheduler[T]) skipRounds() {
	l := &s.fresh
	if l.head == nil {
		l = &s.old
	}
	r := int64(math.MaxInt64)
	for t := l.head; t != nil; t = t.rnext {
		if t.queued == 0 {
			return // Pop unlists it next: progress
		}
		q := sat(s.cfg.quantum, t.weight)
		need := t.buckets[t.top()].head.cost - t.deficit
		r = min(r, (need-1)/q) // rounds that leave it short
	}
	if r <= 0 || r == math.MaxInt64 {
		return
	}
	for t := l.head; t != nil; t = t.rnext {
		t.deficit = satAdd(t.deficit, sat(r, sat(s.cfg.quantum, t.weight)))
	}
}
