package control

import (
	"math"
	"time"
)

// takeTokenLocked charges one request to the change budget (or, for a dry
// run, only checks that it would fit, leaving the budget as it was: a dry run
// stamped later than the next real request must not credit it the budget
// earned by then).
func (r *Registry) takeTokenLocked(now time.Time, dry bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cfg.Rate == 0 {
		return nil
	}
	tokens, at := r.budgetLocked(now)
	if !dry {
		r.tokens, r.tokensAt = tokens, at
	}
	if tokens < 1 {
		return &RateLimitError{RetryAfter: r.retryAfterLocked(now, tokens)}
	}
	if !dry {
		r.held = heldToken{ok: true, tokens: tokens, at: at}
		r.tokens--
	}
	return nil
}

// heldToken is the change budget as it was before the change applying took
// its token: a failed change gets it back whole. One token more than the
// budget left would be wrong after a SetConfig while the change applied:
// the time before it is credited up to the old Burst, which the token taken
// made room for, and a budget switched on after the change was admitted has
// none of its tokens to give back.
type heldToken struct {
	ok     bool
	tokens float64
	at     time.Time
}

// settleTokenLocked ends the change that took r.held, refunding its token if
// refund (its Apply funcs failed or panicked).
func (r *Registry) settleTokenLocked(refund bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if refund && r.held.ok {
		r.tokens, r.tokensAt = r.held.tokens, r.held.at
	}
	r.held = heldToken{}
}

// retryAfterLocked returns how long after now, when the budget holds tokens,
// a request would find a whole token: the exact wait, to the nanosecond. The
// wait is rounded up to the nanosecond, and stepped up past the rounding of
// the refill's float arithmetic: truncated, it fell short of the token about
// half the time, and a caller that waited exactly RetryAfter was refused
// again. The check refills from the budget as stored, as that caller's
// request will. A now before the last refill (explicit times out of order)
// earns nothing until that refill's time, so the wait counts from there:
// stepped up from now instead, it overshot by up to the gap's length.
func (r *Registry) retryAfterLocked(now time.Time, tokens float64) time.Duration {
	w := math.Ceil((1 - tokens) / r.cfg.Rate * float64(time.Second))
	if _, at := r.budgetLocked(now); at.After(now) {
		w += float64(at.Sub(now))
	}
	if w >= float64(math.MaxInt64) {
		return time.Duration(math.MaxInt64)
	}
	wait := max(time.Duration(w), time.Nanosecond)
	// The step doubles: near the largest Duration a nanosecond no longer
	// moves the float sum.
	for step := time.Nanosecond; ; step *= 2 {
		if b, _ := r.budgetLocked(now.Add(wait)); b >= 1 {
			return wait
		}
		if wait > math.MaxInt64-step {
			return time.Duration(math.MaxInt64)
		}
		wait += step
	}
}

// budgetWaitLocked returns wait, a knob's MinInterval wait from now,
// extended to when the change budget holds a whole token if it will not by
// then: told the knob's wait alone, a caller that waited it was refused by
// the budget. The caller holds r.change.
func (r *Registry) budgetWaitLocked(now time.Time, wait time.Duration) time.Duration {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.cfg.Rate == 0 || wait == math.MaxInt64 {
		return wait
	}
	at := now.Add(wait)
	tokens, _ := r.budgetLocked(at)
	if tokens >= 1 {
		return wait
	}
	more := r.retryAfterLocked(at, tokens)
	if more > math.MaxInt64-wait {
		return math.MaxInt64
	}
	return wait + more
}

// budgetLocked returns the change budget at now and the time it counts from,
// without storing them: the budget earned since the last refill at the
// current Rate, up to the current Burst. A now before the last refill (a
// clock stepped back, or a caller that read the clock before a later one
// took the lock) adds nothing.
func (r *Registry) budgetLocked(now time.Time) (float64, time.Time) {
	return r.cfg.earn(now, r.tokens, r.tokensAt)
}

// earn returns a budget of tokens counted from at, at now under c; see
// [Registry.budgetLocked].
func (c Config) earn(now time.Time, tokens float64, at time.Time) (float64, time.Time) {
	if el := now.Sub(at); el > 0 || at.IsZero() {
		if !at.IsZero() {
			tokens = min(c.burst(), tokens+el.Seconds()*c.Rate)
		}
		at = now
	}
	return tokens, at
}

// carry returns a budget of tokens counted from at under c as SetConfigAt
// hands it to next at now: earned at c's Rate up to c's Burst until now, then
// capped to next's Burst. A limit switched on starts full, as one configured
// at New.
func (c Config) carry(next Config, now time.Time, tokens float64, at time.Time) (float64, time.Time) {
	if c.Rate > 0 {
		tokens, at = c.earn(now, tokens, at)
	}
	if c.Rate == 0 && next.Rate > 0 {
		tokens, at = next.burst(), time.Time{}
	}
	return min(tokens, next.burst()), at
}
