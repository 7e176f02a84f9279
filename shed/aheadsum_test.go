package shed_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/shed"
)

// TestShedOnArrivalHugeCostAhead: the cost queued ahead of a request, summed
// over its tenant's buckets of its priority and above, did not wrap negative.
// A request costlier than MaxQueueCost is queued when its bucket is empty, so
// a higher priority can hold a cost of MaxInt64: with one more request at the
// lower priority the int64 sum wrapped to MinInt64, and a request that waits
// behind MaxInt64 of cost at a level of 1,000 per second was not shed on
// arrival.
func TestShedOnArrivalHugeCostAhead(t *testing.T) {
	const window = time.Second
	s := newSched(t, shed.Config{QueueDeadline: 100 * time.Millisecond, StandingDeadline: 10 * time.Millisecond,
		OverShareWindow: window, Priorities: 2, MaxQueue: 10_000, MaxQueueCost: 10_000, ShedOnArrival: true})
	start := levelOf1000(t, s) // B, over its share: a level of 1,000 per second
	_, _, err := s.Push(start, "A", 0, 1, req{tenant: "A"})
	require.NoError(t, err)
	_, _, err = s.Push(start, "A", 1, math.MaxInt64, req{tenant: "A", prio: 1})
	require.NoError(t, err, "an empty bucket takes a request costlier than MaxQueueCost")
	now := start.Add(150 * time.Millisecond) // the bucket of priority 0 stands
	_, _, err = s.Push(now, "A", 1, 1, req{tenant: "A", prio: 1})
	require.ErrorIs(t, err, shed.ErrShed, "bucket full: A is over its share")
	_, _, err = s.Push(now, "A", 0, 1, req{tenant: "A"})
	var se *shed.ShedError
	require.ErrorAs(t, err, &se, "MaxInt64 of cost ahead does not drain in 10 ms at 1,000 per second")
	assert.Equal(t, shed.ReasonQueueDeadline, se.Reason)
	assert.Equal(t, int64(1), s.Tenant(nil, "A")[0].ShedOnArrival)
}
