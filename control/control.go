package control

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Registry holds a tier's knobs and state snapshots and is the one way to read
// and change them. Create it with [New]; there is no process-global registry,
// so tests and multi-tenant hosts make as many as they need.
//
// A Registry is safe for concurrent use. Changes (Apply, Rollback, Register*)
// are serialized by one lock held while the knobs' Apply funcs run; reads (Get,
// Knobs, Audit, Stats) take a separate read lock that changes hold only to
// publish their result, so a reader sees every batch whole or not at all. State
// funcs are called with no lock held.
//
// The registry must be the only writer of a knob's setting: it remembers the
// last value it applied and reports that, and the audit log's chain of old and
// new values holds only if nothing else changes the setting.
type Registry struct {
	change sync.Mutex // serializes changes and registrations

	// mu protects everything below; changes hold it (write) only to publish.
	mu           sync.RWMutex
	cfg          Config
	knobs        map[string]*knob
	names        []string // sorted
	states       map[string]func() any
	log          []Entry // oldest first, at most cfg.auditSize()
	undone       map[uint64]bool
	batch        uint64 // last batch id
	seq          uint64 // last entry seq
	evictedBatch uint64 // highest batch with an entry dropped from log
	tokens       float64
	tokensAt     time.Time
	held         heldToken // the token of the change applying, if it took one

	n counters
}

// Request is a batch of changes applied all or nothing, as [Registry.Apply] and
// POST /control take it.
type Request struct {
	Who     string   `json:"who"`               // operator, cron job or agent; recorded in the audit (its first KiB); valid UTF-8
	Why     string   `json:"why"`               // reason; recorded in the audit (its first KiB); valid UTF-8
	DryRun  bool     `json:"dry_run,omitempty"` // validate and report; change nothing
	Strict  bool     `json:"strict,omitempty"`  // reject out-of-bounds values (*BoundsError) instead of clamping
	Changes []Change `json:"changes"`
}

// Change sets one knob.
type Change struct {
	Knob  string `json:"knob"`
	Value Value  `json:"value"`
}

// Result reports what a request did or, for a dry run, would do.
type Result struct {
	Batch   uint64    `json:"batch,omitempty"` // audit batch id; 0 for a dry run or a no-op
	DryRun  bool      `json:"dry_run,omitempty"`
	Changes []Outcome `json:"changes"`
}

// Outcome is the effect of one change.
type Outcome struct {
	Knob      string `json:"knob"`
	Kind      Kind   `json:"kind,omitzero"` // the knob's kind, which the JSON of Old, New and Requested does not tell
	Old       Value  `json:"old"`
	New       Value  `json:"new"`
	Requested Value  `json:"requested"`
	Clamped   bool   `json:"clamped,omitempty"`   // New is Requested clamped into the bounds
	Unchanged bool   `json:"unchanged,omitempty"` // New equals Old: nothing applied, nothing audited (but see [ApplyError])
}

// Entry is one audit record: one knob changed by one request.
type Entry struct {
	Seq        uint64    `json:"seq"`   // increasing, one per entry
	Batch      uint64    `json:"batch"` // the request; entries of one batch are adjacent
	Time       time.Time `json:"time"`  // never before the previous entry's; see [Registry.ApplyAt]
	Who        string    `json:"who"`
	Why        string    `json:"why"`
	Knob       string    `json:"knob"`
	Kind       Kind      `json:"kind,omitzero"` // the knob's kind, which the JSON of Old and New does not tell
	Old        Value     `json:"old"`
	New        Value     `json:"new"`
	Clamped    bool      `json:"clamped,omitempty"`
	RollbackOf uint64    `json:"rollback_of,omitempty"` // batch this entry undoes; 0 for a forward change
}

// New returns an empty Registry, or an error wrapping [ErrInvalidConfig] if cfg
// is invalid.
func New(cfg Config) (*Registry, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	cfg.AllowedHosts = slices.Clone(cfg.AllowedHosts)
	return &Registry{cfg: cfg, knobs: map[string]*knob{}, states: map[string]func() any{},
		undone: map[uint64]bool{}, tokens: cfg.burst()}, nil
}

// RegisterInt adds an integer knob. It returns ErrDuplicateKnob for a taken name
// and an error wrapping [ErrInvalidKnob] for an invalid description (no name, a
// name, Doc or Values not valid UTF-8, no Apply, Min > Max, an initial value
// out of bounds).
func (r *Registry) RegisterInt(k IntKnob) error { return r.register(fromInt(k)) }

// RegisterFloat adds a float knob; see [Registry.RegisterInt].
func (r *Registry) RegisterFloat(k FloatKnob) error { return r.register(fromFloat(k)) }

// RegisterDuration adds a duration knob; see [Registry.RegisterInt].
func (r *Registry) RegisterDuration(k DurationKnob) error { return r.register(fromDuration(k)) }

// RegisterBool adds a bool knob; see [Registry.RegisterInt].
func (r *Registry) RegisterBool(k BoolKnob) error { return r.register(fromBool(k)) }

// RegisterString adds a string or enum knob; see [Registry.RegisterInt].
func (r *Registry) RegisterString(k StringKnob) error { return r.register(fromString(k)) }

func (r *Registry) register(k *knob) error {
	if err := k.validate(); err != nil {
		return err
	}
	r.change.Lock()
	defer r.change.Unlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.knobs[k.name]; ok {
		return fmt.Errorf("%w: %q", ErrDuplicateKnob, k.name)
	}
	r.knobs[k.name] = k
	i, _ := slices.BinarySearch(r.names, k.name)
	r.names = slices.Insert(r.names, i, k.name)
	return nil
}

// RegisterState adds a named state snapshot, such as a component's Stats
// method: func() any { return limiter.Stats() }. The value must encode as JSON
// for the HTTP API. It returns ErrDuplicateKnob if the name is taken by another
// state, and an error wrapping [ErrInvalidKnob] for an empty name, a name that
// is not valid UTF-8 (JSON would answer it as another, as a knob's) or a nil
// func.
func (r *Registry) RegisterState(name string, fn func() any) error {
	if name == "" || fn == nil {
		return fmt.Errorf("%w: RegisterState needs a name and a func", ErrInvalidKnob)
	}
	if !utf8.ValidString(name) {
		return fmt.Errorf("%w: state name %q is not valid UTF-8", ErrInvalidKnob, name)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.states[name]; ok {
		return fmt.Errorf("%w: state %q", ErrDuplicateKnob, name)
	}
	r.states[name] = fn
	return nil
}

// Get returns a knob's current value, or ErrUnknownKnob.
func (r *Registry) Get(name string) (Value, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	k, ok := r.knobs[name]
	if !ok {
		return Value{}, unknown(name)
	}
	return k.value, nil
}

// Knobs describes every knob with its current value, sorted by name. The
// values are one consistent snapshot: no batch is seen half applied.
func (r *Registry) Knobs() []Info {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Info, 0, len(r.names))
	for _, n := range r.names {
		out = append(out, r.knobs[n].info())
	}
	return out
}

// State calls every registered state func (with no lock held) and returns the
// results by name. A state func's panic goes on to the caller.
func (r *Registry) State() map[string]any {
	var running string
	return r.state(&running)
}

// state is State, keeping in *running the name of the state func it calls, so
// that a caller recovering a panic can say whose it is.
func (r *Registry) state(running *string) map[string]any {
	r.mu.RLock()
	fns := make(map[string]func() any, len(r.states))
	for n, f := range r.states {
		fns[n] = f
	}
	r.mu.RUnlock()
	out := make(map[string]any, len(fns))
	for n, f := range fns {
		*running = n
		out[n] = f()
	}
	return out
}

// Audit returns a copy of the audit log, oldest entry first.
func (r *Registry) Audit() []Entry {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Clone(r.log)
}

// Apply is shorthand for ApplyAt(time.Now(), req), except that the clock is
// read once the registry's lock is held, so concurrent changes are stamped in
// the order they apply.
func (r *Registry) Apply(req Request) (Result, error) { return r.apply(time.Now, req, nil) }

// ApplyAt validates req and applies its changes all or nothing at time now.
//
// Each value is converted to its knob's kind (*ValueError if it cannot be) and
// clamped into the knob's bounds (*BoundsError instead when req.Strict). A
// value equal to the current one is a no-op. Changed knobs must be past their
// MinInterval and the request must fit the registry's change budget
// (*RateLimitError, errors.Is ErrRateLimited). Only then are the Apply funcs
// called, in request order; if one fails, the knobs applied before it get their
// old values back and the error is an *ApplyError (if one panics, they get
// them back as the panic goes on to the caller). Either way the batch's change
// budget is refunded and nothing is recorded. Every knob applied is given its
// old value back even if one of those Apply calls fails or panics: such a knob
// is applied at its next change even if that sets the value the registry
// reports (as is the knob that panicked), the restore's error or panic is
// listed in the *ApplyError's Undo, and the caller sees the failure that
// started the undo (the first error, or the first panic's value), never a
// later one. A panic carries no Undo: [Info.Unsure] marks every such knob
// until its next change. On success every change is recorded in the audit log under one
// batch id. A dry run does everything but call Apply funcs, consume budget and
// record.
//
// The entries are stamped now, or with the time of the entry before them if
// now is earlier (explicit times out of order, a wall clock stepped back), so
// the audit log's times never decrease in log order. Rate limits go by now.
// A now that JSON cannot encode (a year after 9999 or before 0) is refused
// with an error wrapping ErrBadRequest, and nothing changes, as is the zero
// time.Time, which the registry reads as "never" (a knob not changed since
// registration, a budget not yet refilled): start a fake clock past it.
func (r *Registry) ApplyAt(now time.Time, req Request) (Result, error) {
	if err := r.checkTime(now); err != nil {
		return Result{}, err
	}
	return r.apply(func() time.Time { return now }, req, nil)
}

// apply is ApplyAt with the clock read under the lock: a time read before it
// could be older than that of a change that took the lock first. If an Apply
// func panics, the name of its knob is left in *panicked (if not nil).
func (r *Registry) apply(clock func() time.Time, req Request, panicked *string) (Result, error) {
	r.n.requests.Add(1)
	if len(req.Changes) == 0 {
		r.n.rejected.Add(1)
		return Result{}, ErrEmptyRequest
	}
	if err := checkNotes(req.Who, req.Why); err != nil {
		r.n.rejected.Add(1)
		return Result{}, err
	}
	r.change.Lock()
	defer r.change.Unlock()

	now := clock()
	res, plan, err := r.planLocked(now, req)
	if err != nil {
		return Result{}, err
	}
	if len(plan) == 0 {
		r.n.noops.Add(1)
		return res, nil
	}
	if err := r.takeTokenLocked(now, req.DryRun); err != nil {
		r.n.rateLimited.Add(1)
		return Result{}, err
	}
	if req.DryRun {
		r.n.dryRuns.Add(1)
		return res, nil
	}
	applied := false
	defer func() { r.settleTokenLocked(!applied) }() // refunded if an Apply func failed or panicked
	if err := r.applyLocked(plan, panicked); err != nil {
		return Result{}, err
	}
	applied = true
	res.Batch = r.publishLocked(now, req.Who, req.Why, plan, 0)
	return res, nil
}

// planLocked validates req against the knobs and returns the outcome and the
// changes to apply (Outcome entries that are not Unchanged).
func (r *Registry) planLocked(now time.Time, req Request) (Result, []Outcome, error) {
	res := Result{DryRun: req.DryRun, Changes: make([]Outcome, 0, len(req.Changes))}
	var plan []Outcome
	// The longest MinInterval wait (the first knob's alone was refused again
	// by the next); a value error found later still comes first: fix it.
	var limited *RateLimitError
	seen := make(map[string]bool, len(req.Changes))
	for _, c := range req.Changes {
		k, ok := r.knobs[c.Knob] // knobs change only under r.change, which we hold
		if !ok {
			r.n.rejected.Add(1)
			return Result{}, nil, unknown(c.Knob)
		}
		if seen[c.Knob] {
			r.n.rejected.Add(1)
			return Result{}, nil, fmt.Errorf("%w: %q", ErrDuplicateChange, c.Knob)
		}
		seen[c.Knob] = true
		v, err := k.check(c.Value, req.Strict)
		if err != nil {
			r.n.rejected.Add(1)
			return Result{}, nil, err
		}
		requested, _ := coerce(k.kind, c.Value)
		o := Outcome{Knob: k.name, Kind: k.kind, Old: k.value, New: v, Requested: requested, Clamped: v != requested,
			Unchanged: v == k.value && !k.unsure}
		res.Changes = append(res.Changes, o)
		if o.Unchanged {
			continue
		}
		// An Unsure knob sent the value reported is a repair: the component
		// was changed by the failed batch (a rollback, exempt from
		// MinInterval, too), and the reported value does not change.
		repair := k.unsure && v == k.value
		if k.minInterval > 0 && !k.lastChange.IsZero() && !repair {
			if el := now.Sub(k.lastChange); el < k.minInterval {
				wait := k.minInterval - el
				if wait < 0 {
					// Overflow: now is centuries before the last change.
					wait = math.MaxInt64
				}
				if limited == nil || wait > limited.RetryAfter {
					limited = &RateLimitError{Knob: k.name, RetryAfter: wait}
				}
			}
		}
		plan = append(plan, o)
	}
	if limited != nil {
		limited.RetryAfter = r.budgetWaitLocked(now, limited.RetryAfter)
		r.n.rateLimited.Add(1)
		return Result{}, nil, limited
	}
	return res, plan, nil
}

// applyLocked calls the Apply funcs of plan in order and undoes the applied
// prefix if one fails. If one panics, the prefix is undone as the panic
// unwinds, and the panicking knob is marked unsure (its component may hold
// anything): net/http recovers a handler's panic and the process runs on,
// which must not leave a batch half applied. The panicking knob's name is
// left in *panicked (if not nil), for the handler's answer.
func (r *Registry) applyLocked(plan []Outcome, panicked *string) error {
	i, returned := 0, false
	defer func() {
		if !returned {
			if panicked != nil {
				*panicked = plan[i].Knob
			}
			r.markUnsure(plan[i].Knob)
			r.n.applyFailed.Add(1)
			r.undoLocked(plan[:i], &ApplyError{Knob: plan[i].Knob})
		}
	}()
	for ; i < len(plan); i++ {
		if err := r.knobs[plan[i].Knob].apply(plan[i].New); err != nil {
			returned = true
			r.n.applyFailed.Add(1)
			ae := &ApplyError{Knob: plan[i].Knob, Err: err}
			r.undoLocked(plan[:i], ae)
			return ae
		}
	}
	returned = true
	return nil
}

// undoLocked gives the knobs of applied, newest first, their old values back,
// recording in ae the restores that fail and marking their knobs unsure. It
// does not panic: every knob is tried even if one restore panics, and the
// failure (an error or a panic) that started the undo stays the one the caller
// sees.
func (r *Registry) undoLocked(applied []Outcome, ae *ApplyError) {
	for j := len(applied) - 1; j >= 0; j-- {
		p := applied[j]
		if uerr := r.restoreLocked(p); uerr != nil {
			r.markUnsure(p.Knob)
			ae.Undo = append(ae.Undo, fmt.Errorf("restore %q to %v: %w", p.Knob, p.Old, uerr))
		}
	}
}

// markUnsure marks a knob whose component may hold another value than the
// one reported, where readers see it (Info.Unsure): when a panic fails the
// batch, the caller sees only that panic, not the undos that failed with it.
// The caller holds r.change.
func (r *Registry) markUnsure(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.knobs[name].unsure = true
}

// restoreLocked gives p's knob its old value back, turning a panic of its
// Apply func into an error. Its recover stops only a panic of that call: it
// runs on restoreLocked's own return, not for a panic that is unwinding
// through applyLocked's deferred undo.
func (r *Registry) restoreLocked(p Outcome) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = panicError(v)
		}
	}()
	return r.knobs[p.Knob].apply(p.Old)
}

// publishLocked makes the applied plan visible: values, audit entries, stats.
func (r *Registry) publishLocked(now time.Time, who, why string, plan []Outcome, rollbackOf uint64) uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	who, why = note(who), note(why)
	r.batch++
	stamp := now
	if n := len(r.log); n > 0 && stamp.Round(0).Before(r.log[n-1].Time.Round(0)) {
		// Wall clocks: the log is read as wall times, and a clock stepped
		// back moves the wall reading back but not the monotonic one.
		stamp = r.log[n-1].Time
	}
	for _, o := range plan {
		k := r.knobs[o.Knob]
		k.value, k.unsure = o.New, false
		// Never back in time: a rollback (exempt from MinInterval) may carry
		// a clock read before a later change took the lock.
		if now.After(k.lastChange) {
			k.lastChange = now
		}
		r.seq++
		r.log = append(r.log, Entry{Seq: r.seq, Batch: r.batch, Time: stamp, Who: who, Why: why, Knob: o.Knob,
			Kind: k.kind, Old: o.Old, New: o.New, Clamped: o.Clamped, RollbackOf: rollbackOf})
		if o.Clamped {
			r.n.clamped.Add(1)
		}
	}
	if rollbackOf != 0 {
		r.undone[rollbackOf] = true
		r.n.rollbacks.Add(1)
	}
	r.trimLocked()
	r.n.applied.Add(1)
	r.n.changes.Add(uint64(len(plan)))
	return r.batch
}

// checkNotes refuses a who or a why that is not valid UTF-8: JSON would
// replace its bytes with U+FFFD, and the audit log would not say who did what.
// (The handler and DecodeRequest refuse a body that is not UTF-8 already.)
func checkNotes(who, why string) error {
	switch {
	case !utf8.ValidString(who):
		return fmt.Errorf("%w: who is not valid UTF-8", ErrBadRequest)
	case !utf8.ValidString(why):
		return fmt.Errorf("%w: why is not valid UTF-8", ErrBadRequest)
	}
	return nil
}

// maxNote bounds the who and the why an audit entry keeps, in bytes: the log
// is bounded in memory, not only in entries.
const maxNote = 1 << 10

// note returns s cut to maxNote bytes at a character boundary, copied so
// that the entry does not keep the whole string alive.
func note(s string) string {
	if len(s) <= maxNote {
		return s
	}
	i := maxNote
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return strings.Clone(s[:i])
}

// trimLocked drops the oldest audit entries beyond the bound. The backing
// array is compacted only once the dropped prefix is as long as the bound, so
// a change costs amortized O(1) rather than a copy of the log.
func (r *Registry) trimLocked() {
	size := r.cfg.auditSize()
	drop := len(r.log) - size
	if drop <= 0 {
		return
	}
	r.evictedBatch = r.log[drop-1].Batch
	r.n.evicted.Add(uint64(drop))
	clear(r.log[:drop]) // let the dropped strings be collected
	r.log = r.log[drop:]
	if cap(r.log) > 2*size+8 || len(r.log) == cap(r.log) {
		r.log = append(make([]Entry, 0, 2*size), r.log...)
		for b := range r.undone {
			if b <= r.evictedBatch {
				delete(r.undone, b)
			}
		}
	}
}

// Rollback is shorthand for RollbackAt(time.Now(), who, why), except that the
// clock is read once the registry's lock is held, as in [Registry.Apply].
func (r *Registry) Rollback(who, why string) (Result, error) {
	return r.rollback(time.Now, who, why, nil)
}

// RollbackAt undoes the most recent forward batch not yet undone: its knobs get
// back the values they had before it. Calling it again undoes the batch before
// that, and so on, as far as the bounded audit log reaches (then
// ErrNothingToRollback). A rollback is exempt from rate limits (it is the
// emergency brake) but counts as a change for the knobs' MinInterval, and is
// audited with RollbackOf set. If an Apply func refuses, the rollback is itself
// undone and the error is an *ApplyError. Its entries are stamped, and a now
// JSON cannot encode or the zero time refused, as in [Registry.ApplyAt].
func (r *Registry) RollbackAt(now time.Time, who, why string) (Result, error) {
	if err := r.checkTime(now); err != nil {
		return Result{}, err
	}
	return r.rollback(func() time.Time { return now }, who, why, nil)
}

// rollback is RollbackAt with the clock read under the lock; panicked is as
// in apply.
func (r *Registry) rollback(clock func() time.Time, who, why string, panicked *string) (Result, error) {
	r.n.requests.Add(1)
	if err := checkNotes(who, why); err != nil {
		r.n.rejected.Add(1)
		return Result{}, err
	}
	r.change.Lock()
	defer r.change.Unlock()

	target, entries := r.lastForwardLocked()
	if target == 0 {
		r.n.rejected.Add(1) // every request has an outcome counter: see Stats
		return Result{}, ErrNothingToRollback
	}
	plan := make([]Outcome, 0, len(entries))
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		k := r.knobs[e.Knob]
		plan = append(plan, Outcome{Knob: e.Knob, Kind: k.kind, Old: k.value, New: e.Old, Requested: e.Old})
	}
	if err := r.applyLocked(plan, panicked); err != nil {
		return Result{}, err
	}
	b := r.publishLocked(clock(), who, why, plan, target)
	return Result{Batch: b, Changes: plan}, nil
}

// lastForwardLocked finds the newest forward batch not yet undone whose entries
// are all still in the log.
func (r *Registry) lastForwardLocked() (uint64, []Entry) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for i := len(r.log) - 1; i >= 0; i-- {
		e := r.log[i]
		if e.RollbackOf != 0 || r.undone[e.Batch] {
			continue
		}
		if e.Batch <= r.evictedBatch {
			return 0, nil
		}
		j := i
		for j > 0 && r.log[j-1].Batch == e.Batch {
			j--
		}
		return e.Batch, slices.Clone(r.log[j : i+1])
	}
	return 0, nil
}
