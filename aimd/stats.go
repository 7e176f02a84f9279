package aimd

// Stats is a snapshot of a [Limiter]: monotonic counters and current gauges.
//
// Each admission call that ended counts once: in Admitted if it got in, or
// in one Rejected counter if it was refused. A blocked [Limiter.Acquire]
// that waits and gets in is an admission only; one whose context ends while
// it waits is a rejection by the cause of its last refusal. Calls that fail
// with ErrClosed count in neither.
type Stats struct {
	Admitted       int64 // admissions
	Succeeded      int64 // done(true) calls
	Failed         int64 // done(false) calls
	RejectedLimit  int64 // refused for the concurrency limit (ErrLimitExceeded from TryAcquire)
	RejectedRate   int64 // refused for an empty token bucket (ErrLimitExceeded from TryAcquire)
	RejectedMemory int64 // refused by the memory guard (ErrMemory from TryAcquire)
	Steps          int64 // control steps taken
	Increases      int64 // steps that raised the limit
	Decreases      int64 // steps that lowered the limit
	SignalErrors   int64 // steps whose signal failed
	MemoryTrips    int64 // times the memory guard tripped

	InFlight    int     // admitted work not yet done
	Limit       int     // concurrency limit
	Rate        float64 // token bucket rate per second (0 without a bucket)
	Load        float64 // the newest signal sample that was a number and that a step applied (a step that overlapped a newer one, or sampled a Signal that SetConfig replaced, applies none; a NaN sample, "no reading", leaves it, as does a failed one, but for a MaxOf's partial reading, a lower bound of the load, which is recorded; 0 before the first; an infinite one reads as ±math.MaxFloat64, so Stats encodes as JSON)
	MemoryHigh  bool    // the memory guard is tripped
	HeapBytes   float64 // the newest memory reading a step applied, or New's before the first step
	MemoryLimit float64 // the limit the guard watches (0: no guard)
}

// Rejected returns the admission calls refused for any reason.
func (s Stats) Rejected() int64 { return s.RejectedLimit + s.RejectedRate + s.RejectedMemory }

type counters struct {
	admitted, succeeded, failed                 int64
	rejectedLimit, rejectedRate, rejectedMemory int64
	steps, increases, decreases, signalErrors   int64
	memoryTrips                                 int64
	load, heap                                  float64
}

// Stats returns a snapshot.
func (l *Limiter) Stats() Stats {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.st
	rate := l.rate
	if l.cfg.MaxRate <= 0 {
		rate = 0 // no bucket, no rate (whatever MinRate says)
	}
	return Stats{
		Admitted: c.admitted, Succeeded: c.succeeded, Failed: c.failed,
		RejectedLimit: c.rejectedLimit, RejectedRate: c.rejectedRate, RejectedMemory: c.rejectedMemory,
		Steps: c.steps, Increases: c.increases, Decreases: c.decreases,
		SignalErrors: c.signalErrors, MemoryTrips: c.memoryTrips,
		InFlight: l.inflight, Limit: int(l.limit), Rate: rate, Load: c.load,
		MemoryHigh: l.memHigh, HeapBytes: c.heap, MemoryLimit: l.cfg.memLimit,
	}
}
