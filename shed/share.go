package shed

import (
	"math"
	"math/bits"
)

// shareWindow estimates the fair share of a backlogged tenant, the max-min
// level: over a window of OverShareWindow, the most cost per unit of weight
// that a tenant served from the old list got (the tenants over their share
// that stay backlogged all get the level; the others, marked over by an
// earlier shed but light, get less and do not lower it). A tenant on the fresh list that is served more than
// the previous window's level within the current window counts as over its
// share too, even if it was never shed: otherwise a flood that happened not to
// be shed would keep the fresh list's priority and take more than the others.
type shareWindow struct {
	id    uint64 // current window, from 1
	start int64
	// The most cost per unit of weight served in the window to a tenant
	// served from the old list, as that tenant's cost and weight (a fraction
	// when it weighs more than one): oldCost 0 when the old list was served
	// nothing.
	oldCost, oldWeight int64
	// The same for the tenants served from the fresh list.
	freshCost, freshWeight int64
	// The previous window's level, levelCost per levelWeight units of
	// weight; levelCost 0 for none.
	levelCost, levelWeight int64
	last                   int64 // the latest time a request was served, for rescale
}

// served accounts cost served from the queue to t at at, from the fresh list
// if fresh, and marks t over its share when it exceeds the level.
func (s *Scheduler[T]) served(t *tenantState[T], cost, at int64, fresh bool) {
	w := &s.share
	if w.id == 0 || at-w.start >= s.cfg.overShareWindow {
		s.nextWindow(at)
	}
	w.last = max(w.last, at)
	if t.win != w.id {
		t.win, t.winCost = w.id, 0
	}
	// Saturated as the other cost counters: an empty bucket takes a request of
	// any cost, so two served in one window could wrap the sum negative, and
	// the tenant would neither raise the level nor count as over it.
	t.winCost = satAdd(t.winCost, cost)
	if !fresh {
		if w.oldCost == 0 || above(t.winCost, t.weight, w.oldCost, w.oldWeight) {
			w.oldCost, w.oldWeight = t.winCost, t.weight
		}
		return
	}
	if w.freshCost == 0 || above(t.winCost, t.weight, w.freshCost, w.freshWeight) {
		w.freshCost, w.freshWeight = t.winCost, t.weight
	}
	if w.levelCost > 0 && above(t.winCost, t.weight, w.levelCost, w.levelWeight) {
		s.markOver(t, at, true)
	}
}

// nextWindow closes the share window and sets the level for the next one: the
// most cost per unit of weight that a tenant of the old list got (exact: a
// fraction for a tenant of weight above 1), or, if the old list
// was starved (backlogged and served nothing) half the most that a fresh
// tenant got (exact too, see halfLevel), so that the largest fresh tenants count as over their share
// until the old list is served again. With nothing backlogged on the old list,
// there is no level.
func (s *Scheduler[T]) nextWindow(at int64) {
	w := &s.share
	switch {
	case w.id == 0, at-w.start-s.cfg.overShareWindow >= s.cfg.overShareWindow:
		// No window yet, or the previous window served nothing (this one
		// opens after a gap): nothing was backlogged over its share then.
		w.levelCost = 0
	case w.oldCost > 0:
		w.levelCost, w.levelWeight = w.oldCost, w.oldWeight
	case s.old.head != nil:
		w.levelCost, w.levelWeight = halfLevel(w.freshCost, w.freshWeight)
	default:
		w.levelCost = 0
	}
	w.id++
	w.start, w.oldCost, w.freshCost = at, 0, 0
}

// rescale adapts the share window to a new OverShareWindow (s.cfg still holds
// the old one). The level is a cost per window: read at the new length it
// claimed a rate new/old times the one measured, so it is rescaled to the
// same rate. The window in progress restarts at the latest time known (an
// arrival, admission, refusal or serve), so that the next level is measured
// over the new length: left running, a window shortened below the time it had
// already run closed at the next serve with a maximum taken over more than a
// window. A window that had run its old length is closed first, as the next
// serve would have closed it (its maximum becomes the level, or none after a
// gap).
func (s *Scheduler[T]) rescale(window int64) {
	w, old := &s.share, s.cfg.overShareWindow
	if w.id == 0 || window == old {
		return
	}
	at := max(s.coarse, w.last)
	if at-w.start >= old {
		s.nextWindow(at)
	}
	w.levelCost = mulDiv(w.levelCost, window, old)
	w.id++ // the tenants' cost within the window starts again
	w.start, w.oldCost, w.freshCost = at, 0, 0
}

// mulDiv returns v*a/b for v >= 0 and a, b >= 1, saturated at MaxInt64, and
// at least 1 if v is: a level does not vanish because the window shrank.
func mulDiv(v, a, b int64) int64 {
	if v <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(v), uint64(a))
	if hi >= uint64(b) {
		return math.MaxInt64
	}
	q, _ := bits.Div64(hi, lo, uint64(b))
	return int64(min(max(q, 1), math.MaxInt64))
}

// levelAt is the share level in force at at, as a cost per a weight: the
// current window's, or none (cost 0) when at is past the window after it
// (nextWindow will find the gap and set none), so a level from before an idle
// spell is not used meanwhile.
func (s *Scheduler[T]) levelAt(at int64) (cost, weight int64) {
	if w := &s.share; w.levelCost > 0 && at-w.start-s.cfg.overShareWindow < s.cfg.overShareWindow {
		return w.levelCost, w.levelWeight
	}
	return 0, 1
}

// halfLevel is half of cost per weight, as a cost per a weight, but at least
// 1 per weight (the floor a whole level per unit of weight had: a tenant of
// weight 1 served 1 sets 1, not 0.5), and 1 when cost is 0 (the fresh list
// was served nothing either: a window a rescale opened). Exact but for a
// weight above MaxInt64/2, where the cost is halved instead (rounded down,
// at least 1).
func halfLevel(cost, weight int64) (int64, int64) {
	if cost == 0 {
		return 1, 1
	}
	if weight > math.MaxInt64/2 {
		return max(cost/2, 1), weight
	}
	return max(cost, 2), 2 * weight
}

// wholeLevel is a level for Stats: rounded down to a whole cost per unit of
// weight, but at least 1 when there is one, as 0 reads as none.
func wholeLevel(cost, weight int64) int64 {
	if cost <= 0 {
		return 0
	}
	return max(cost/weight, 1)
}

// above reports whether c1/w1 > c2/w2, exactly (costs >= 0, weights >= 1).
func above(c1, w1, c2, w2 int64) bool {
	hi1, lo1 := bits.Mul64(uint64(c1), uint64(w2))
	hi2, lo2 := bits.Mul64(uint64(c2), uint64(w1))
	return hi1 > hi2 || hi1 == hi2 && lo1 > lo2
}

// sat returns a*b, saturated at MaxInt64 (both are positive).
func sat(a, b int64) int64 {
	if a > math.MaxInt64/b {
		return math.MaxInt64
	}
	return a * b
}
