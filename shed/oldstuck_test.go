package shed_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/shed"
)

// TestSchedulerMarkRunOutLeavesOldList: a tenant whose over-share mark has
// run out is under its share, so its next request is served in the round
// robin of the fresh list, even if the tenant is still on the old list
// (pushed there while it was over its share, and not found empty at its
// head since, as the fresh list never emptied).
func TestSchedulerMarkRunOutLeavesOldList(t *testing.T) {
	const window = time.Second
	s := newSched(t, shed.Config{Quantum: 1, Priorities: 1, MaxQueue: 1000, MaxQueueCost: 1000,
		QueueDeadline: 100 * time.Millisecond, StandingDeadline: 10 * time.Millisecond,
		OverShareWindow: window})
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	// X is over its share at 0 (a bucket-full shed), and its request joins
	// the old list; it is canceled at 50 ms, unserved, so X is not shed again.
	s.Refuse(at(0), "X", 0, shed.ReasonBucketFull)
	h, _, err := s.Push(at(0), "X", 0, 1, req{tenant: "X"})
	require.NoError(t, err)
	// A and B keep the fresh list backlogged: 20 requests each, then one each
	// every 2 ms, while one request is served every ms (they wait 40 ms).
	for range 20 {
		for _, n := range []string{"A", "B"} {
			_, _, err := s.Push(at(0), n, 0, 1, req{tenant: n})
			require.NoError(t, err)
		}
	}
	servedX := -1
	for ms := 1; ms <= 1200 && servedX < 0; ms++ {
		if ms == 50 {
			require.True(t, s.Remove(at(ms), h, 0))
		}
		if ms%2 == 0 {
			for _, n := range []string{"A", "B"} {
				_, _, err := s.Push(at(ms), n, 0, 1, req{tenant: n})
				require.NoError(t, err)
			}
		}
		if ms == 1050 { // X's mark ran out at 1000 ms
			_, dl, err := s.Push(at(ms), "X", 0, 1, req{tenant: "X"})
			require.NoError(t, err)
			assert.Equal(t, at(ms+100), dl, "X is under its share: the long deadline")
		}
		v, _, ok := s.Pop(at(ms), math.MaxInt64, func(r req) {
			t.Fatalf("%v's request expired at %d ms", r.tenant, ms)
		})
		if ok && v.tenant == "X" {
			servedX = ms
		}
	}
	require.GreaterOrEqual(t, servedX, 1050, "X is not served while over its share")
	assert.LessOrEqual(t, servedX, 1053, "X, under its share, waits one round of the fresh list")
}
