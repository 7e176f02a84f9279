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

	Requests    uint64 // change requests received (Apply and Rollback, dry runs included)
	Applied     uint64 // requests that changed at least one knob
	Changes     uint64 // knob changes applied (rollbacks included)
	NoOps       uint64 // requests that changed nothing (every value already set)
	DryRuns     uint64 // dry runs that passed validation and would change something (one that would not counts in NoOps)
	Rejected    uint64 // requests refused by validation (empty, unknown knob, value, bounds) and rollbacks with nothing to undo
	RateLimited uint64 // requests refused by a MinInterval or the change budget
	ApplyFailed uint64 // requests a component's Apply refused (batch undone)
	Clamped     uint64 // changes whose value was clamped into the knob's bounds
	Rollbacks   uint64 // rollbacks applied
	Evicted     uint64 // audit entries dropped from the bounded log
}

// counters are the registry's atomic counters.
type counters struct {
	requests, applied, changes, noops, dryRuns, rejected atomic.Uint64
	rateLimited, applyFailed, clamped, rollbacks         atomic.Uint64
	evicted                                              atomic.Uint64
}
