package shed_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/shed"
)

// bucketTally is what the callers of one (tenant, priority) bucket saw.
type bucketTally struct {
	arrived, admitted, canceled atomic.Int64
	shed                        [5]atomic.Int64 // by Reason
}

// TestStressBucketAccounting runs concurrent callers (Acquire with a live,
// timed or ended context, TryAcquire; priorities out of range too) against
// a small limit, with SetConfig swaps of the bounds and deadlines, Kick,
// the readers and, halfway, Close racing them: every bucket's stats must match what
// its callers saw, reason by reason (admitted + shed + canceled + queued =
// arrived, per bucket and not only in the totals), and inside each admitted
// request the cost in flight stays within the limit unless it runs alone.
func TestStressBucketAccounting(t *testing.T) {
	const limit, prios, workers, ops = 4, 3, 8, 300
	cfg := func(r *rand.Rand) shed.Config {
		return shed.Config{Capacity: shed.Fixed(limit), Priorities: prios,
			MaxQueue: 1 + r.IntN(3), MaxQueueCost: int64(2 + r.IntN(6)),
			QueueDeadline: time.Duration(1+r.IntN(3)) * time.Millisecond, ShedOnArrival: r.IntN(2) == 0}
	}
	s := newShedder(t, cfg(rand.New(rand.NewPCG(0, 0))))
	tallies := map[string]*bucketTally{}
	for i := range 6 {
		for p := range prios {
			tallies[fmt.Sprint("t", i, "/", p)] = new(bucketTally)
		}
	}
	var inflight atomic.Int64
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Go(func() { // reconfigures and reads while the callers run
		r := rand.New(rand.NewPCG(1, 1))
		for {
			select {
			case <-stop:
				return
			default:
			}
			assert.NoError(t, s.SetConfig(cfg(r)))
			s.Kick()
			if s.Stats().Admitted > workers*ops/2 {
				s.Close() // with requests queued, likely; later calls are refused
			}
			_ = s.Buckets()
		}
	})
	var callers sync.WaitGroup
	for w := range workers {
		callers.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 2))
			for range ops {
				tenant, prio, cost := fmt.Sprint("t", r.IntN(6)), r.IntN(prios+4)-2, int64(r.IntN(4))
				tl := tallies[fmt.Sprint(tenant, "/", min(max(prio, 0), prios-1))]
				tl.arrived.Add(1)
				rel, err := stressCall(r, s, tenant, prio, cost)
				var se *shed.ShedError
				switch {
				case err == nil:
					tl.admitted.Add(1)
					c := max(cost, 1)
					if n := inflight.Add(c); n > limit && n != c {
						t.Errorf("in flight %d > limit %d", n, limit)
					}
					inflight.Add(-c)
					rel()
				case errors.As(err, &se):
					tl.shed[se.Reason].Add(1)
				default:
					require.True(t, errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded), "%v", err)
					tl.canceled.Add(1)
				}
			}
		})
	}
	callers.Wait()
	close(stop)
	wg.Wait()
	s.Close()
	st := s.Stats()
	assert.Zero(t, st.InFlight)
	assert.Zero(t, st.Queued)
	t.Logf("admitted %d, shed full %d, deadline %d (on arrival %d), no capacity %d, closed %d, canceled %d",
		st.Admitted, st.ShedBucketFull, st.ShedQueueDeadline, st.ShedOnArrival, st.ShedNoCapacity, st.ShedClosed, st.Canceled)
	buckets := s.Buckets()
	require.Len(t, buckets, len(tallies))
	for _, b := range buckets {
		tl := tallies[fmt.Sprint(b.Tenant, "/", b.Priority)]
		require.NotNil(t, tl, "bucket %s/%d", b.Tenant, b.Priority)
		got := [...]int64{b.Admitted, b.ShedBucketFull, b.ShedQueueDeadline, b.ShedNoCapacity, b.ShedClosed, b.Canceled}
		want := [...]int64{tl.admitted.Load(), tl.shed[shed.ReasonBucketFull].Load(), tl.shed[shed.ReasonQueueDeadline].Load(),
			tl.shed[shed.ReasonNoCapacity].Load(), tl.shed[shed.ReasonClosed].Load(), tl.canceled.Load()}
		assert.Equal(t, want, got, "bucket %s/%d: admitted, full, deadline, no capacity, closed, canceled", b.Tenant, b.Priority)
		assert.Equal(t, tl.arrived.Load(), b.Admitted+b.Shed()+b.Canceled+int64(b.Queued), "bucket %s/%d: arrived", b.Tenant, b.Priority)
		assert.LessOrEqual(t, b.ShedOnArrival, b.ShedQueueDeadline)
	}
}

// stressCall makes one call of the stress mix: TryAcquire, or Acquire with a
// live, timed or already ended context.
func stressCall(r *rand.Rand, s *shed.Shedder, tenant string, prio int, cost int64) (func(), error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	switch r.IntN(5) {
	case 0:
		return s.TryAcquire(tenant, prio, cost)
	case 1:
		cancel()
	case 2:
		ctx, cancel = context.WithTimeout(ctx, time.Duration(r.IntN(2000))*time.Microsecond)
		defer cancel()
	}
	return s.Acquire(ctx, tenant, prio, cost)
}
