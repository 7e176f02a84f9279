package shed

import "math"

// shareWindow estimates the fair share of a backlogged tenant, the max-min
// level: over a window of OverShareWindow, the cost served from the old list
// per unit of weight of the tenants served there (the tenants over their share,
// which all get the level). A tenant on the fresh list that is served more than
// the previous window's level within the current window counts as over its
// share too, even if it was never shed: otherwise a flood that happened not to
// be shed would keep the fresh list's priority and take more than the others.
type shareWindow struct {
	id        uint64 // current window, from 1
	start     int64
	oldCost   int64 // cost served from the old list in the current window
	oldWeight int64 // weight of the distinct tenants served from it
	maxFresh  int64 // most cost served to one tenant from the fresh list, per unit of weight
	level     int64 // previous window's level per unit of weight; 0 for none
}

// served accounts cost served from the queue to t at at, from the fresh list
// if fresh, and marks t over its share when it exceeds the level.
func (s *Scheduler[T]) served(t *tenantState[T], cost, at int64, fresh bool) {
	w := &s.share
	if w.id == 0 || at-w.start >= s.cfg.overShareWindow {
		s.nextWindow(at)
	}
	if t.win != w.id {
		t.win, t.winCost = w.id, 0
	}
	t.winCost += cost
	if !fresh {
		w.oldCost += cost
		if t.oldWin != w.id {
			t.oldWin = w.id
			w.oldWeight += t.weight
		}
		return
	}
	w.maxFresh = max(w.maxFresh, t.winCost/t.weight)
	if w.level > 0 && t.winCost > sat(w.level, t.weight) {
		s.markOver(t, at, true)
	}
}

// nextWindow closes the share window and sets the level for the next one: the
// cost per unit of weight that the old list's tenants got, or, if the old list
// was starved (backlogged and served nothing) half the most that a fresh
// tenant got, so that the largest fresh tenants count as over their share
// until the old list is served again. With nothing backlogged on the old list,
// there is no level.
func (s *Scheduler[T]) nextWindow(at int64) {
	w := &s.share
	switch {
	case w.id == 0:
		w.level = 0
	case w.oldWeight > 0:
		w.level = max(w.oldCost/w.oldWeight, 1)
	case s.old.head != nil:
		w.level = max(w.maxFresh/2, 1)
	default:
		w.level = 0
	}
	w.id++
	w.start, w.oldCost, w.oldWeight, w.maxFresh = at, 0, 0, 0
}

// sat returns a*b, saturated at MaxInt64 (both are positive).
func sat(a, b int64) int64 {
	if a > math.MaxInt64/b {
		return math.MaxInt64
	}
	return a * b
}
