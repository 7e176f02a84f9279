package aimd

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// Limiter is adaptive admission control: a concurrency limit and, optionally, a
// token bucket, both regulated by an AIMD loop on a load [Signal], plus a memory
// guard. Create it with [New]; it is safe for concurrent use.
//
// The loop takes one step per [Config.Period]: lazily, on the first admission
// after the period ends (the admitting goroutine samples the signal, outside the
// lock), or explicitly with [Limiter.Tick] when [Config.Manual] is set. No
// goroutine is started, so there is nothing to stop; [Limiter.Close] only fails
// later admissions and wakes blocked ones.
type Limiter struct {
	mu       sync.Mutex // protects the fields up to the blank line
	cfg      config
	limit    float64 // concurrency limit, in [Min, Max]
	rate     float64 // tokens per second, when cfg.MaxRate > 0
	tokens   float64
	refilled time.Time
	// refillSet: refilled holds a refill's time. Not refilled.IsZero: an
	// explicit clock may start at the zero time.Time.
	refillSet bool
	// earnedCap, when positive, caps the next refill: the burst before a
	// SetConfig that enlarged the bucket. That refill credits the time since
	// the last one, which ran (partly) under the smaller bucket.
	earnedCap float64
	inflight  int
	memHigh   bool
	above     int // consecutive steps with the load above the target
	// recLimit and recRate are fast recovery's memory (Config.Recover).
	recLimit, recRate RecoverState
	// applied counts the steps whose readings were applied, the latest at
	// appliedAt: a step that overlapped a later one drops its readings
	// (stepStaleLocked).
	applied   uint64
	appliedAt time.Time
	// signals counts the SetConfig calls that replaced the Signal: a step
	// that sampled the one replaced drops its reading.
	signals uint64
	closed  bool
	changed chan struct{} // closed and replaced when capacity may have freed
	waiting int           // Acquire calls between giving up the lock and retrying
	st      counters

	limitNow atomic.Int64 // the limit, readable without the lock (Limit)
	nextStep atomic.Int64 // the next lazy step, as sinceEpoch reads it; stepNow for at once
	stepping atomic.Bool  // a lazy step is in progress
	done     func(ok bool)
	// epoch is time.Now at New, the origin of the lazy schedule. Offsets from
	// it (now.Sub(epoch)) follow the monotonic clock when now carries a
	// monotonic reading, as time.Now's do, so a step of the wall clock (NTP,
	// a VM resumed) neither stalls the lazy steps nor fires them early; an
	// explicit time without one is compared by its wall reading, as before.
	// An explicit clock centuries away moves it (maybeStep), so it is read
	// without the lock.
	epoch atomic.Pointer[time.Time]
}

// stepNow as nextStep makes the next admission step, whatever its time (an
// explicit time may be earlier than epoch).
const stepNow = math.MinInt64

// New returns a Limiter configured by cfg, or an error wrapping
// [ErrInvalidConfig] if cfg is invalid. It reads [Config.HeapBytes] once, so
// the memory guard applies from the start: a Limiter created with the memory
// already above MemoryHigh rejects work with ErrMemory before its first step
// (with Manual, before the first Tick).
func New(cfg Config) (*Limiter, error) {
	c, err := cfg.validate()
	if err != nil {
		return nil, err
	}
	c.withSignal(nil)
	l := &Limiter{cfg: c, limit: float64(c.Initial), rate: c.MaxRate, changed: make(chan struct{})}
	epoch := time.Now()
	l.epoch.Store(&epoch)
	l.tokens = l.burstLocked() // full, as SetConfig starts an enabled bucket
	l.limitNow.Store(int64(c.Initial))
	l.nextStep.Store(stepNow)
	l.done = l.release
	// The guard judges a first reading of the memory here, not at the first
	// step: with Manual that waits for the caller's first Tick, and a
	// Limiter created with the memory already over its mark admitted work
	// until then.
	l.st.heap = float64(c.HeapBytes())
	l.guardLocked(l.st.heap)
	return l, nil
}

// SetConfig validates cfg and applies it atomically, or returns an error
// wrapping [ErrInvalidConfig] and changes nothing. The current limit and rate
// are clamped into the new bounds, and the memory guard is tripped or reset for
// the last memory reading under the new limit and marks. A longer Period
// enlarges the token bucket from the swap on: the tokens earned before it
// stay within the previous bucket. SetConfig takes no time, so the first
// refill after it that credits time (an admission or step at a time later
// than the latest refill) cannot tell the tokens earned before the swap from
// those earned after: it is capped at the previous bucket as a whole, and the
// larger bucket fills from the refill after that (fewer tokens admitted for
// one refill, never more). A step that was sampling the Signal a SetConfig
// replaces drops that reading, as its Target no longer applies: the limit
// holds for that step, as for a NaN reading. A Signal is kept when the new
// one is equal to it (the same pointer, or a MaxOf of the same slice); one
// that cannot be compared, such as a SignalFunc, counts as replaced.
func (l *Limiter) SetConfig(cfg Config) error {
	c, err := cfg.validate()
	if err != nil {
		return err
	}
	l.mu.Lock()
	c.withSignal(&l.cfg)
	if !sameSignal(c.Signal, l.cfg.Signal) {
		l.signals++
	}
	wasRate, oldBurst := l.cfg.MaxRate > 0, l.burstLocked()
	if l.cfg.Manual && !c.Manual || c.Period < l.cfg.Period {
		// The lazy loop was parked (Manual) or waits out a longer period:
		// the next admission steps and re-arms it. Other changes keep the
		// schedule, so frequent SetConfig calls do not add steps.
		l.nextStep.Store(stepNow)
	}
	l.cfg = c
	l.limit = clampF(l.limit, c.limitP.Min, c.limitP.Max)
	l.rate = clampF(l.rate, c.rateP.Min, c.rateP.Max)
	if !wasRate && c.MaxRate > 0 { // a bucket enabled now starts at MaxRate, full
		// the rate first: burstLocked reads it, and one assignment would
		// size the bucket by the rate before (0 without a bucket: one token)
		l.rate = c.MaxRate
		l.tokens, l.refillSet, l.earnedCap = l.burstLocked(), false, 0
	} else if c.MaxRate > 0 && l.refillSet && l.burstLocked() > oldBurst {
		// A longer Period (a larger bucket): the tokens earned since the last
		// refill were earned under the smaller one, and the next refill,
		// which credits them all, must not read them under the larger.
		l.earnedCap = min(oldBurst, or(l.earnedCap, oldBurst))
	}
	l.recLimit.Mark, l.recRate.Mark = min(l.recLimit.Mark, c.limitP.Max), min(l.recRate.Mark, c.rateP.Max)
	if !c.Recover {
		l.recLimit, l.recRate = RecoverState{}, RecoverState{}
	}
	// The guard's verdict follows the new limit and marks at once, on the
	// last reading: a guard disabled or raised here would otherwise keep
	// rejecting until the next step (with Manual, until the caller ticks).
	l.guardLocked(l.st.heap)
	l.limitNow.Store(int64(l.limit))
	l.wakeLocked()
	l.mu.Unlock()
	return nil
}

// Config returns the configuration in force, as New or the last SetConfig
// got it (zero fields stay zero: they mean the defaults), so that a knob
// can change one field: c := l.Config(); c.Target = v; l.SetConfig(c).
// A nil Signal (the default one) stays nil, and SetConfig keeps the
// default signal the Limiter has, with its baseline.
func (l *Limiter) Config() Config {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cfg.given
}

// Limit returns the current concurrency limit. It reads one atomic, so a
// consumer may call it on every decision: a shed.Shedder takes a Limiter as its
// capacity. It never steps the loop (only admissions and [Limiter.Tick] do):
// a Limiter read by a Shedder alone keeps its limit (see the package doc).
func (l *Limiter) Limit() int { return int(l.limitNow.Load()) }

// TryAcquire admits one unit of work now or fails without waiting: with
// ErrMemory while the memory guard is tripped, ErrLimitExceeded when the
// concurrency limit is reached or the token bucket is empty, ErrClosed after
// Close. On success the caller must call done exactly once when the work ends,
// with ok reporting whether it succeeded (counted in [Stats]; the loop itself
// acts on the Signal). done is shared by all admissions (calling it twice
// releases twice), which is what lets admission allocate nothing.
func (l *Limiter) TryAcquire() (done func(ok bool), err error) {
	return l.TryAcquireAt(l.now())
}

// now reads the clock as the epoch plus the time since it: the same offset
// from the epoch as time.Now's, from one read of the monotonic clock where
// time.Now reads the wall clock too (49 ns against 26.5 on a VM of the
// sixty-first session, bench/shed/clock_read61.txt; a rejection is little
// more than the read). The wall
// clock of such a time is the epoch's plus the monotonic time since; the
// Limiter reads only offsets and differences, which follow the monotonic
// clock. An epoch without a monotonic reading (an explicit time far from
// the old one became it) gives the wall clock's time, as time.Now's
// difference from it did.
func (l *Limiter) now() time.Time {
	ep := *l.epoch.Load()
	return ep.Add(time.Since(ep))
}

// TryAcquireAt is TryAcquire at a time the caller already read (a server that
// stamps each request once saves a clock read per admission; tests and
// simulations pass explicit time). now should not go backwards by more than a
// control period between calls: the token bucket refills from the latest now
// it has seen and ignores an earlier one, and the control loop takes its next
// step only once now reaches the step after the latest it took (a clock set
// back by an hour stops the loop for that hour).
func (l *Limiter) TryAcquireAt(now time.Time) (done func(ok bool), err error) {
	l.maybeStep(now)
	l.mu.Lock()
	refused, err := l.tryLocked(now)
	if refused != nil {
		*refused++
	}
	l.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return l.done, nil
}

// Acquire is the blocking TryAcquire: it waits until the work is admitted, the
// Limiter is closed, or ctx ends (then it returns ctx.Err() and holds nothing).
// It waits for a release when the concurrency limit is reached, for the next
// token when the bucket is empty, and for the next control step while the memory
// guard is tripped; in each case it also wakes when the next lazy control step
// is due, and takes it. In [Stats] it counts once: as an admission if it gets
// in, or, if ctx ends first, as a rejection by the cause of its last refusal.
func (l *Limiter) Acquire(ctx context.Context) (done func(ok bool), err error) {
	for {
		now := l.now()
		l.maybeStep(now)
		l.mu.Lock()
		var refused *int64
		refused, err = l.tryLocked(now)
		if err == nil || err == ErrClosed {
			l.mu.Unlock()
			if err != nil {
				return nil, err
			}
			return l.done, nil
		}
		wait := l.cfg.Period
		if err == ErrLimitExceeded && l.inflight < l.Limit() && l.rate > 0 {
			// At most a period: a rate cut near zero would otherwise sleep
			// for weeks (or overflow the Duration), and the lazy step that
			// raises it again runs only on an admission attempt.
			if sec := (1 - l.tokens) / l.rate; sec < wait.Seconds() {
				wait = time.Duration(sec * float64(time.Second))
			}
		}
		wait = l.untilStep(now, wait)
		changed := l.changed
		l.waiting++
		l.mu.Unlock()
		err = l.sleep(ctx, max(wait, time.Microsecond), changed)
		l.mu.Lock()
		l.waiting--
		if err != nil {
			*refused++ // it gives up: its refusal is final
		}
		l.mu.Unlock()
		if err != nil {
			return nil, err
		}
	}
}

// untilStep returns wait, or less when the next lazy step is due sooner: a
// blocked Acquire wakes to take it (it runs on an admission attempt), not up
// to a period later with the admission or the memory guard's reset it brings.
// A step due already is being taken by another caller, whose end wakes the
// waiters; with Manual the steps come from Tick, which wakes them too.
func (l *Limiter) untilStep(now time.Time, wait time.Duration) time.Duration {
	next := l.nextStep.Load()
	if next == stepNow || next == math.MaxInt64 {
		return wait
	}
	if due := next - l.sinceEpoch(now); due > 0 && due < int64(wait) {
		return time.Duration(due)
	}
	return wait
}

func (l *Limiter) sleep(ctx context.Context, d time.Duration, changed <-chan struct{}) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-changed:
	case <-t.C:
	}
	return nil
}

// tryLocked admits one unit at now or says why not, with the Stats counter
// of the refusal (nil for ErrClosed), which the caller counts when the
// refusal is final: a blocked Acquire that gets in later is an admission
// only, so that admissions plus rejections are the calls that ended.
func (l *Limiter) tryLocked(now time.Time) (refused *int64, err error) {
	switch {
	case l.closed:
		return nil, ErrClosed
	case l.memHigh:
		return &l.st.rejectedMemory, ErrMemory
	case l.inflight >= int(l.limit):
		return &l.st.rejectedLimit, ErrLimitExceeded
	}
	if l.cfg.MaxRate > 0 {
		l.refillLocked(now)
		if l.tokens < 1 {
			return &l.st.rejectedRate, ErrLimitExceeded
		}
		l.tokens--
	}
	l.inflight++
	l.st.admitted++
	return nil, nil
}

// refillLocked adds the tokens earned since the last refill, keeping at most one
// period's worth (one token, when the rate earns fewer in a period): a burst
// never releases more than one control period's tokens.
func (l *Limiter) refillLocked(now time.Time) {
	switch el := now.Sub(l.refilled); {
	case !l.refillSet:
		l.refilled, l.refillSet = now, true
	case el > 0:
		l.tokens += l.rate * el.Seconds()
		l.refilled = now
		// The cap is for the refill that credits the time across a
		// SetConfig: one that credits nothing (a time at or before the
		// latest refill) leaves it for the next.
		if l.earnedCap > 0 {
			l.tokens, l.earnedCap = min(l.tokens, l.earnedCap), 0
		}
	}
	l.tokens = min(l.tokens, l.burstLocked())
}

func (l *Limiter) burstLocked() float64 { return max(1, l.rate*l.cfg.Period.Seconds()) }

// release is the done func of every admission.
func (l *Limiter) release(ok bool) {
	l.mu.Lock()
	l.inflight--
	if ok {
		l.st.succeeded++
	} else {
		l.st.failed++
	}
	l.wakeLocked()
	l.mu.Unlock()
}

// wakeLocked wakes the blocked Acquire calls so that they try again. With nobody
// waiting it does nothing, so a release allocates nothing.
func (l *Limiter) wakeLocked() {
	if l.waiting > 0 {
		close(l.changed)
		l.changed = make(chan struct{})
	}
}

// maybeStep takes the lazy control step when its time has come; one caller does
// it while the others go on.
func (l *Limiter) maybeStep(now time.Time) {
	at := l.sinceEpoch(now)
	if !farOff(at) && at < l.nextStep.Load() || !l.stepping.CompareAndSwap(false, true) {
		return
	}
	defer l.stepping.Store(false)
	// The schedule is set under the lock, which SetConfig holds to change
	// Manual and Period and to re-arm the schedule: set after it, from the
	// configuration read before, it would park a loop SetConfig just
	// restarted.
	l.mu.Lock()
	if at = l.sinceEpoch(now); farOff(at) {
		// An explicit clock centuries from the epoch (a simulation that
		// starts at the zero time.Time): offsets saturate there, every time
		// reads the same one, and the loop stepped once and never again, or
		// at every admission. It becomes the epoch, and steps now, as after
		// New.
		epoch := now // a copy: now's address would move every call's now to the heap
		l.epoch.Store(&epoch)
		at = 0
		l.nextStep.Store(stepNow)
	}
	if l.cfg.Manual || l.closed {
		// Parked: Tick drives a Manual loop, and a closed Limiter, which
		// admits nothing, reads its Signal no more (SetConfig re-arms the
		// schedule; the next attempt parks it again).
		l.nextStep.Store(math.MaxInt64)
		l.mu.Unlock()
		return
	}
	if at < l.nextStep.Load() {
		l.mu.Unlock()
		return
	}
	next := at + int64(l.cfg.Period)
	if next < at { // overflow: a Period of a century or more
		next = math.MaxInt64
	}
	l.nextStep.Store(next)
	l.mu.Unlock()
	l.step(now)
}

// sinceEpoch returns now as nanoseconds since l.epoch: by the monotonic clock
// when now has a monotonic reading (time.Now), by the wall clock otherwise (an
// explicit time). now.UnixNano would read the wall clock for both. Sub
// saturates about 290 years away from epoch; see farOff.
func (l *Limiter) sinceEpoch(now time.Time) int64 { return int64(now.Sub(*l.epoch.Load())) }

// farOff reports an offset from the epoch too far to schedule by (some 146
// years or more, where Sub saturates or the next step's time overflows):
// maybeStep then moves the epoch to the time read.
func farOff(at int64) bool { return at < -1<<62 || at > 1<<62 }

// Tick takes one control step at now: it samples the signal and the memory,
// updates the limit and the rate, and trips or resets the memory guard. It
// returns the signal's error, if any (the limit is then unchanged, but for a
// [MaxOf]'s reading above the target, see there). Of Ticks (and lazy
// steps) that overlap, the readings at the later time count: one whose now
// is before that of a step that completed while it sampled changes
// nothing, as its readings are older. Call it from
// your own loop when [Config.Manual] is set, or to drive a Limiter on explicit
// time in tests and simulations.
func (l *Limiter) Tick(now time.Time) error { return l.step(now) }

func (l *Limiter) step(now time.Time) error {
	l.mu.Lock()
	sig, heapFn, followGo := l.cfg.Signal, l.cfg.HeapBytes, l.cfg.MemoryLimit == 0
	applied, signals := l.applied, l.signals
	l.mu.Unlock()
	load, err := sig.Sample(now) // outside the lock: it may read files
	heap := float64(heapFn())
	goLimit := 0.0
	if followGo {
		goLimit = goMemLimit()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.st.steps++
	if l.stepStaleLocked(now, applied) {
		if err != nil {
			l.st.signalErrors++
		}
		l.wakeLocked()
		return err
	}
	l.st.heap = heap
	c := &l.cfg
	if followGo && c.MemoryLimit == 0 {
		c.memLimit = goLimit
	}
	l.guardLocked(heap)
	if l.signals != signals {
		// SetConfig replaced the Signal while this one was sampled: its
		// reading, of another quantity, is none against the new Target.
		load = math.NaN()
	}
	partial := err != nil && isPartial(err)
	if !math.IsNaN(load) && (err == nil || partial) {
		// NaN is "no reading": keep the last one, and keep Stats
		// encodable; an infinity is a reading, stored finite for the same
		// reason. A MaxOf's partial reading is one too (a lower bound),
		// below the target as well; a plain error's number is not.
		l.st.load = max(-math.MaxFloat64, min(load, math.MaxFloat64))
	}
	if err != nil {
		l.st.signalErrors++
		// A MaxOf's partial reading is a lower bound of the load: above
		// the target it proves an overload, whatever the failed component
		// reads, and the loop cuts; otherwise it tells nothing, and the
		// limit holds, as for any error.
		if !(load > c.Target) || !partial {
			l.wakeLocked()
			return err
		}
	}
	prev := l.limit
	switch {
	case load > c.Target:
		l.above++
	case load >= 0 && load <= c.Target: // not NaN nor negative: no reading, as in Update
		l.above = 0
	}
	lp, rp := c.limitP, c.rateP
	lp.Backoff = EscalatedBackoff(lp.Backoff, l.above)
	rp.Backoff = lp.Backoff
	next := Update(l.limit, load, lp)
	if c.Recover {
		next, l.recLimit = Recover(l.limit, next, load, l.recLimit, lp)
	}
	l.limit = next
	if c.MaxRate > 0 {
		l.stepRateLocked(now, load, rp)
	}
	l.publishLocked(prev)
	return err
}

// publishLocked counts a step's change of the limit from prev, publishes the
// limit for Limit and wakes the blocked Acquire calls.
func (l *Limiter) publishLocked(prev float64) {
	switch {
	case l.limit > prev:
		l.st.increases++
	case l.limit < prev:
		l.st.decreases++
	}
	l.limitNow.Store(int64(l.limit))
	l.wakeLocked()
}

// stepRateLocked is a step's update of the token bucket's rate, with rp's
// Backoff escalated as the limit's.
func (l *Limiter) stepRateLocked(now time.Time, load float64, rp Params) {
	l.refillLocked(now)
	next := Update(l.rate, load, rp)
	if l.cfg.Recover {
		next, l.recRate = Recover(l.rate, next, load, l.recRate, rp)
	}
	l.rate = next
	l.tokens = min(l.tokens, l.burstLocked())
}

// stepStaleLocked reports whether the readings of a step at now, which began
// when applied steps had been applied, are older than the latest ones
// applied: another step applied its readings while this one took its own,
// at a later time. Stored last, they would replace the newer ones (the
// memory guard tripped on an older heap, the limit cut for an older load).
// Otherwise it records now as the time of the latest readings. Steps that
// do not overlap all count, whatever their times.
func (l *Limiter) stepStaleLocked(now time.Time, applied uint64) bool {
	if l.applied != applied && now.Before(l.appliedAt) {
		return true
	}
	l.applied++
	l.appliedAt = now
	return false
}

// guardLocked trips or resets the memory guard for a reading of heap bytes
// under the configuration in force.
func (l *Limiter) guardLocked(heap float64) {
	c := &l.cfg
	tripped := guard(l.memHigh, heap, c.memLimit, c.MemoryHigh, c.MemoryLow)
	if tripped && !l.memHigh {
		l.st.memoryTrips++
	}
	l.memHigh = tripped
}

// Close makes later admissions fail with ErrClosed and wakes blocked Acquire
// calls. It stops the lazy control loop: a closed Limiter takes no step and
// reads its Signal no more, but for an explicit Tick. Admitted work must
// still call done. Close is idempotent.
func (l *Limiter) Close() {
	l.mu.Lock()
	l.closed = true
	l.wakeLocked()
	l.mu.Unlock()
}
