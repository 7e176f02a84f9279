package coalesce

// Stats is a snapshot of a [Group]'s counters, returned by [Group.Stats]. Every field
// but InFlight is monotonic since the Group was created; take two snapshots and
// subtract to get rates.
type Stats struct {
	// Calls counts calls to Do, DoWith and DoChan.
	Calls uint64
	// Executions counts runs of fn started (one per key per burst of callers).
	Executions uint64
	// Joins counts calls that attached to an execution already in flight instead of
	// starting one. Calls = Executions + Joins + calls that found their ctx already
	// done.
	Joins uint64
	// CancelledWaiters counts callers that left because their ctx ended before the
	// result arrived (including those whose ctx was done on entry).
	CancelledWaiters uint64
	// Abandoned counts executions whose context was cancelled because every waiter
	// left before fn returned.
	Abandoned uint64
	// Panics counts executions whose fn panicked or called runtime.Goexit.
	Panics uint64
	// Forgets counts calls to Forget that removed an in-flight execution.
	Forgets uint64
	// InFlight is the number of executions started (counted when the first
	// caller registers one, before its fn runs) whose fn has not yet returned
	// (a gauge, not monotonic). Forgotten and abandoned executions count
	// until their fn returns. So InFlight need not be 0 once every caller has
	// returned: a caller that leaves through its ctx does not wait for fn, and
	// when every caller of an execution left, its fn goes on, on its own
	// goroutine, until it sees its context cancelled and returns. An execution
	// whose result a caller got (even one whose ctx ended as it arrived) no
	// longer counts.
	InFlight uint64
}

// JoinRatio returns the share of calls served by joining an execution already in
// flight, Joins/Calls, in [0, 1]; 0 when there were no calls. Calls includes the
// calls whose ctx was done on entry, which asked the backend for nothing: the
// fraction of backend calls that coalescing saved is Joins/(Executions+Joins).
func (s Stats) JoinRatio() float64 {
	if s.Calls == 0 {
		return 0
	}
	return float64(s.Joins) / float64(s.Calls)
}

// CallsPerExecution returns Calls/Executions; 0 when nothing executed. It counts
// the calls whose ctx was done on entry, which no run of fn served: how many
// callers one run served on average is (Executions+Joins)/Executions.
func (s Stats) CallsPerExecution() float64 {
	if s.Executions == 0 {
		return 0
	}
	return float64(s.Calls) / float64(s.Executions)
}
