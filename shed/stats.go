package shed

import "time"

// BucketStats is a snapshot of one (tenant, priority) bucket. Counters are
// monotonic for as long as the tenant's state is kept (see [Config.MaxTenants]
// and [Config.IdleTimeout]); Queued and QueuedCost are gauges.
type BucketStats struct {
	Tenant   string
	Priority int

	Admitted     int64 // requests admitted, directly or after queueing
	AdmittedCost int64 // their total cost (it saturates at MaxInt64 rather than wrap)

	ShedBucketFull    int64 // shed with ReasonBucketFull
	ShedQueueDeadline int64 // shed with ReasonQueueDeadline
	ShedOnArrival     int64 // of ShedQueueDeadline, those shed on arrival (Config.ShedOnArrival)
	ShedClosed        int64 // shed with ReasonClosed
	ShedNoCapacity    int64 // TryAcquire refusals (ReasonNoCapacity)
	// Canceled counts requests ended by their context before admission:
	// they left the queue, or arrived with it ended and were refused without
	// queueing (Shedder.Acquire past its fast path, Scheduler.Refuse with
	// reason zero), then counted in no shed reason even if the bucket was full.
	Canceled int64

	Queued     int   // requests waiting now
	QueuedCost int64 // their total cost

	WaitCount int64         // requests admitted after waiting in the queue
	WaitTotal time.Duration // their total wait (it saturates at the largest Duration rather than wrap)
	WaitMax   time.Duration // the longest wait of an admitted request
}

// Shed returns the number of requests shed for any reason.
func (b BucketStats) Shed() int64 {
	return b.ShedBucketFull + b.ShedQueueDeadline + b.ShedClosed + b.ShedNoCapacity
}

// MeanWait returns the mean queue wait of the requests admitted after waiting.
func (b BucketStats) MeanWait() time.Duration {
	if b.WaitCount == 0 {
		return 0
	}
	return b.WaitTotal / time.Duration(b.WaitCount)
}

// Stats is a snapshot of the totals over every bucket, plus the Shedder's gauges.
// Totals include the counts of tenants already reclaimed.
type Stats struct {
	Admitted          int64
	AdmittedCost      int64
	ShedBucketFull    int64
	ShedQueueDeadline int64
	ShedOnArrival     int64 // of ShedQueueDeadline, shed on arrival (Config.ShedOnArrival)
	ShedClosed        int64
	ShedNoCapacity    int64
	Canceled          int64 // as BucketStats.Canceled
	WaitCount         int64
	WaitTotal         time.Duration // as BucketStats.WaitTotal

	Queued     int   // requests waiting now
	QueuedCost int64 // their cost (MaxInt64 while it is beyond)
	Tenants    int   // tenants whose state is kept now
	Active     int   // tenants with requests queued now
	Reclaimed  int64 // tenant states reclaimed (idle or over MaxTenants)

	// OverShareByShed and OverShareByLevel count the times a tenant under its
	// share became over it (see [Config.OverShareWindow]): because one of its
	// requests was shed, or because it was served more than the share level.
	// A tenant marked again while still over is not counted again.
	OverShareByShed, OverShareByLevel int64
	// ShareLevel is the current max-min fair level: the cost per unit of
	// weight a tenant may be served from the fresh list within one
	// OverShareWindow before it counts as over its share (0: none, nothing
	// was backlogged over its share in the previous window; a window is
	// closed by the first serve after its end, see [Config.ShedOnArrival]), as
	// of the latest time seen by a Push, Admit or Refuse (a Shedder's Acquire
	// or TryAcquire, queued, admitted or refused; its direct admissions read
	// the clock once every 64) or a Shedder's SetConfig (a Scheduler's Stats
	// takes no time; Pop, Expire and Remove do not advance that clock).
	// It is rounded down to a whole cost, but at least 1 when there is a
	// level; the level itself is exact: measured on a tenant of weight 10
	// served 9, it is 0.9 (reported as 1), and a tenant of weight 1 served 1
	// is over it.
	ShareLevel int64

	InFlight int64 // cost admitted and not yet released (Shedder only)
	Limit    int   // capacity limit at the snapshot (Shedder only)
}

// Shed returns the number of requests shed for any reason.
func (s Stats) Shed() int64 {
	return s.ShedBucketFull + s.ShedQueueDeadline + s.ShedClosed + s.ShedNoCapacity
}

// counters are the monotonic counters of a bucket or of the totals, updated under
// the owner's lock.
type counters struct {
	// what a request served from the queue updates, in one cache line
	admitted, admittedCost int64
	waitCount              int64
	waitTotal, waitMax     int64

	shed      [numReasons]int64
	canceled  int64
	onArrival int64 // of shed[ReasonQueueDeadline]
}

func (c *counters) wait(d int64) {
	c.waitCount++
	c.waitTotal = satAdd(c.waitTotal, d) // as the cost counters: never wraps negative
	c.waitMax = max(c.waitMax, d)
}

func (c *counters) fill(b *BucketStats) {
	b.Admitted, b.AdmittedCost = c.admitted, c.admittedCost
	b.ShedBucketFull = c.shed[ReasonBucketFull]
	b.ShedQueueDeadline = c.shed[ReasonQueueDeadline]
	b.ShedOnArrival = c.onArrival
	b.ShedClosed = c.shed[ReasonClosed]
	b.ShedNoCapacity = c.shed[ReasonNoCapacity]
	b.Canceled = c.canceled
	b.WaitCount, b.WaitTotal, b.WaitMax = c.waitCount, time.Duration(c.waitTotal), time.Duration(c.waitMax)
}
