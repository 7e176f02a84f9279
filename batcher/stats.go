package batcher

import (
	"math"
	"sync/atomic"
	"time"
)

// Stats is a snapshot of a [Batcher]'s counters (monotonic since New) and gauges
// (values at the time of the call).
type Stats struct {
	// Items is the number of items dispatched to the flush func, counted before
	// de-duplication (items rejected with ErrOverloaded are not included), when
	// their flush returns (until then they are in InFlightItems).
	Items uint64
	// Sent is the number of requests passed to the flush func, after
	// de-duplication: Items - Deduped, less the items of batches that a
	// panicking [Config.Key] failed (nothing of such a batch is sent).
	Sent uint64
	// Deduped is the number of items that shared an identical item's result.
	Deduped uint64
	// Batches is the number of flush calls, counted as they return. A batch
	// that a panicking [Config.Key] failed before its call counts as one call
	// that panicked (in FlushErrors too), with no request sent.
	Batches uint64
	// FlushErrors is the number of flush calls that returned an error or panicked.
	FlushErrors uint64
	// Cancelled is the number of items whose caller's context ended before
	// dispatch, none of them sent: those whose context had already ended when
	// Do or Start was called (refused before joining a batch), and those
	// whose context ended while their batch was open (removed from it). An
	// item whose context ends after dispatch is not counted here: it stays
	// in the backend call and counts in Items.
	Cancelled uint64
	// Rejected is the number of items answered ErrOverloaded, at admission or when
	// their batch closed while the cap was reached (a caller that left just then
	// saw ctx.Err() but is counted here: its item was not sent either).
	Rejected uint64
	// EvictedGroups is the number of idle group entries removed.
	EvictedGroups uint64

	// MeanFill is the mean over all batches of items/MaxItems (MaxItems as it was
	// when each batch was flushed), between 0 and 1. A failed batch (its
	// flush returned an error or panicked, or a panicking Config.Key failed
	// it before the call) counts with its live items, as in Batches and
	// Items; a batch answered ErrOverloaded, or left by all its callers, is
	// counted in neither.
	MeanFill float64
	// FlushLatencySum is the total time spent in flush calls; see
	// [Stats.MeanFlushLatency]. It saturates at the largest Duration rather
	// than wrap negative (about 292 years of flush time in all, which
	// DefaultMaxInFlight flushes always in flight add up in about 14 months);
	// MeanFlushLatency is then an underestimate.
	FlushLatencySum time.Duration
	// FlushLatencyMax is the longest flush call.
	FlushLatencyMax time.Duration

	// LiveGroups is the number of group entries held (gauge).
	LiveGroups int
	// PendingItems is the number of items in open batches (gauge).
	PendingItems int
	// InFlightBatches is the number of dispatched batches whose flush has not
	// returned (gauge); it never exceeds MaxInFlight except during Close, or
	// after SetConfig lowered MaxInFlight below the batches then in flight.
	InFlightBatches int
	// InFlightItems is the number of items in those batches (gauge).
	InFlightItems int
}

// MeanBatchSize returns Items/Batches, or 0 before the first batch.
func (s Stats) MeanBatchSize() float64 {
	if s.Batches == 0 {
		return 0
	}
	return float64(s.Items) / float64(s.Batches)
}

// MeanFlushLatency returns FlushLatencySum/Batches, or 0 before the first batch.
func (s Stats) MeanFlushLatency() time.Duration {
	if s.Batches == 0 {
		return 0
	}
	return s.FlushLatencySum / time.Duration(s.Batches)
}

// fillScale is the fixed-point scale of counters.fill.
const fillScale = 1 << 20

// counters are the monotonic counters behind Stats. All are updated once per
// batch or per rejected/cancelled item, never once per accepted item.
type counters struct {
	items, sent, deduped, batches, flushErrors atomic.Uint64
	cancelled, rejected, evicted               atomic.Uint64
	// fill is the sum of fillScale*items/MaxItems over the batches, and
	// fillHi the times it wrapped: a full batch adds 2^20, so one word holds
	// 2^44 batches, about 203 days at a million a second (see addFill).
	fill, fillHi           atomic.Uint64
	latencySum, latencyMax atomic.Int64 // nanoseconds
}

// addFill adds one batch's fill (at most fillScale) to the two-word sum.
func (c *counters) addFill(f uint64) {
	if c.fill.Add(f) < f { // the low word wrapped
		c.fillHi.Add(1)
	}
}

// fillSum returns the sum of the fills, in fillScale units. The high word is
// read first: a snapshot that races with a wrap may miss 2^64 (MeanFill
// reads low for that once), never count it twice (MeanFill above 1).
func (c *counters) fillSum() float64 {
	hi := c.fillHi.Load()
	return math.Ldexp(float64(hi), 64) + float64(c.fill.Load())
}

// recordLatency adds one flush duration (d >= 0). The sum saturates at
// MaxInt64 rather than wrap negative.
func (c *counters) recordLatency(d time.Duration) {
	for {
		old := c.latencySum.Load()
		sum := old + int64(d)
		if sum < old { // wrapped
			sum = math.MaxInt64
		}
		if sum == old || c.latencySum.CompareAndSwap(old, sum) {
			break
		}
	}
	for {
		old := c.latencyMax.Load()
		if int64(d) <= old || c.latencyMax.CompareAndSwap(old, int64(d)) {
			return
		}
	}
}
