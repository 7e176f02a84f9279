package control

import "sync/atomic"

// Stats is a snapshot of a Registry's counters. Counters are monotonic since the
// registry was created; Knobs, States and AuditLen are gauges. Each request
// counts in Requests and in one outcome: Applied, NoOps, DryRuns, Rejected,
// RateLimited or ApplyFailed, so with no request in flight they add up to
// Requests (a snapshot taken during one may see it in Requests only).
type Stats struct {
	Knobs    int // registered knobs
	States   int // registered state snapshots
	AuditLen int // audit entries held

	Requests    uint64 // change requests received (Apply and Rollback, dry runs included; over HTTP every POST / and POST /rollback the Handler serves)
	Applied     uint64 // requests that changed at least one knob
	Changes     uint64 // knob changes applied (rollbacks included)
	NoOps       uint64 // requests that changed nothing (every value already set)
	DryRuns     uint64 // dry runs that passed validation and would change something (one that would not counts in NoOps)
	Rejected    uint64 // requests refused by validation (empty, unknown knob, value, bounds, a body that is no request) and rollbacks with nothing to undo
	RateLimited uint64 // requests refused by a MinInterval or the change budget
	ApplyFailed uint64 // requests a component's Apply refused (batch undone)
	Clamped     uint64 // changes whose value was clamped into the knob's bounds
	Rollbacks   uint64 // rollbacks applied
	Evicted     uint64 // audit entries dropped from the bounded log
	// StatePanics counts state funcs that panicked while the HTTP handler
	// served GET / or GET /state (a read, not a request counted above).
	StatePanics uint64
}

// counters are the registry's atomic counters.
type counters struct {
	requests, applied, changes, noops, dryRuns, rejected atomic.Uint64
	rateLimited, applyFailed, clamped, rollbacks         atomic.Uint64
	evicted, statePanics                                 atomic.Uint64
}

// Stats returns a snapshot of the registry's counters.
func (r *Registry) Stats() Stats {
	r.mu.RLock()
	s := Stats{Knobs: len(r.knobs), States: len(r.states), AuditLen: len(r.log)}
	r.mu.RUnlock()
	// Requests last: a request counts in Requests before its outcome, so
	// every outcome read here has its request counted by then. Read first,
	// it missed the requests that started and ended during this snapshot.
	s.Applied = r.n.applied.Load()
	s.Changes = r.n.changes.Load()
	s.NoOps = r.n.noops.Load()
	s.DryRuns = r.n.dryRuns.Load()
	s.Rejected = r.n.rejected.Load()
	s.RateLimited = r.n.rateLimited.Load()
	s.ApplyFailed = r.n.applyFailed.Load()
	s.Clamped = r.n.clamped.Load()
	s.Rollbacks = r.n.rollbacks.Load()
	s.Evicted = r.n.evicted.Load()
	s.StatePanics = r.n.statePanics.Load()
	s.Requests = r.n.requests.Load()
	return s
}
