package shed_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/shed"
)

func newShedder(t *testing.T, cfg shed.Config) *shed.Shedder {
	t.Helper()
	s, err := shed.New(cfg)
	require.NoError(t, err)
	return s
}

func TestShedderFastPathAndTry(t *testing.T) {
	s := newShedder(t, shed.Config{Capacity: shed.Fixed(3)})
	ctx := context.Background()
	r1, err := s.Acquire(ctx, "A", 0, 2)
	require.NoError(t, err)
	r2, err := s.TryAcquire("B", 1, 1)
	require.NoError(t, err)
	_, err = s.TryAcquire("B", 1, 1)
	require.ErrorIs(t, err, shed.ErrShed)
	var se *shed.ShedError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, shed.ReasonNoCapacity, se.Reason)
	st := s.Stats()
	assert.Equal(t, int64(3), st.InFlight)
	assert.Equal(t, 3, st.Limit)
	assert.Equal(t, int64(2), st.Admitted)
	assert.Equal(t, int64(1), st.ShedNoCapacity)
	r1()
	r1() // no-op
	r2()
	assert.Equal(t, int64(0), s.Stats().InFlight)
	b := s.Tenant("B")
	require.Len(t, b, 2)
	assert.Equal(t, int64(1), b[1].Admitted)
	assert.Equal(t, int64(1), b[1].ShedNoCapacity)
	assert.Nil(t, s.Tenant("nobody"))
	assert.Len(t, s.Buckets(), 4)
}

func TestShedderOversizeRunsAlone(t *testing.T) {
	s := newShedder(t, shed.Config{Capacity: shed.Fixed(2)})
	r, err := s.TryAcquire("A", 0, 10)
	require.NoError(t, err, "a request costlier than the limit runs when nothing is in flight")
	_, err = s.TryAcquire("A", 0, 1)
	require.Error(t, err)
	r()
}

func TestShedderQueueAndRelease(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newShedder(t, shed.Config{Capacity: shed.Fixed(1), QueueDeadline: time.Second, StandingDeadline: time.Second})
		ctx := context.Background()
		hold, err := s.Acquire(ctx, "A", 0, 1)
		require.NoError(t, err)
		var order []string
		var mu sync.Mutex
		var wg sync.WaitGroup
		// A floods, B sends one: B is served second, not after A's backlog.
		for i, tenant := range []string{"A", "A", "A", "B"} {
			wg.Go(func() {
				rel, err := s.Acquire(ctx, tenant, 0, 1)
				if !assert.NoError(t, err) {
					return
				}
				mu.Lock()
				order = append(order, fmt.Sprint(tenant, i))
				mu.Unlock()
				time.Sleep(time.Millisecond) // the work
				rel()
			})
			synctest.Wait() // queue in this order
		}
		assert.Equal(t, 4, s.Stats().Queued)
		hold()
		wg.Wait()
		require.Len(t, order, 4)
		assert.Equal(t, "A0", order[0])
		assert.Equal(t, "B3", order[1])
		st := s.Stats()
		assert.Equal(t, int64(5), st.Admitted)
		assert.Equal(t, int64(4), st.WaitCount)
		assert.Equal(t, 0, st.Queued)
	})
}

func TestShedderDeadlineAndCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newShedder(t, shed.Config{Capacity: shed.Fixed(1), QueueDeadline: 50 * time.Millisecond})
		hold, err := s.Acquire(context.Background(), "A", 0, 1)
		require.NoError(t, err)
		start := time.Now()
		_, err = s.Acquire(context.Background(), "B", 0, 1)
		var se *shed.ShedError
		require.ErrorAs(t, err, &se)
		assert.Equal(t, shed.ReasonQueueDeadline, se.Reason)
		assert.Equal(t, 50*time.Millisecond, time.Since(start))

		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
		defer cancel()
		_, err = s.Acquire(ctx, "C", 0, 1)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		_, err = s.Acquire(ctx, "C", 0, 1)
		require.ErrorIs(t, err, context.DeadlineExceeded, "an ended context is not queued")
		st := s.Stats()
		assert.Equal(t, int64(1), st.ShedQueueDeadline)
		assert.Equal(t, int64(2), st.Canceled)
		assert.Equal(t, 0, st.Queued)
		hold()
		assert.Equal(t, int64(0), s.Stats().InFlight)
	})
}

func TestShedderClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newShedder(t, shed.Config{Capacity: shed.Fixed(1)})
		hold, err := s.Acquire(context.Background(), "A", 0, 1)
		require.NoError(t, err)
		errc := make(chan error, 1)
		go func() {
			_, err := s.Acquire(context.Background(), "B", 0, 1)
			errc <- err
		}()
		synctest.Wait()
		s.Close()
		s.Close()
		err = <-errc
		var se *shed.ShedError
		require.ErrorAs(t, err, &se)
		assert.Equal(t, shed.ReasonClosed, se.Reason)
		_, err = s.Acquire(context.Background(), "B", 0, 1)
		require.ErrorIs(t, err, shed.ErrShed)
		_, err = s.TryAcquire("B", 0, 1)
		require.ErrorAs(t, err, &se)
		assert.Equal(t, shed.ReasonClosed, se.Reason)
		hold()
		assert.Equal(t, int64(3), s.Stats().ShedClosed)
	})
}

func TestShedderKickAfterCapacityGrows(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var limit atomic.Int64
		limit.Store(1)
		s := newShedder(t, shed.Config{Capacity: shed.CapacityFunc(func() int { return int(limit.Load()) }), QueueDeadline: time.Second})
		hold, err := s.Acquire(context.Background(), "A", 0, 1)
		require.NoError(t, err)
		done := make(chan error, 1)
		go func() {
			rel, err := s.Acquire(context.Background(), "B", 0, 1)
			if err == nil {
				rel()
			}
			done <- err
		}()
		synctest.Wait()
		limit.Store(2)
		s.Kick()
		require.NoError(t, <-done)
		hold()
	})
}

func TestShedderSetConfig(t *testing.T) {
	s := newShedder(t, shed.Config{})
	assert.Equal(t, shed.DefaultLimit, s.Stats().Limit)
	require.NoError(t, s.SetConfig(shed.Config{Capacity: shed.Fixed(7)}))
	assert.Equal(t, 7, s.Stats().Limit)
	require.Error(t, s.SetConfig(shed.Config{Quantum: -1}))
	assert.Equal(t, 7, s.Stats().Limit, "a rejected config changes nothing")
	_, err := shed.New(shed.Config{MaxQueue: -1})
	require.Error(t, err)
}

// TestShedderStress runs many goroutines against a small limit under -race and
// checks, inside every admitted request, that the cost in flight never exceeds the
// limit, and at the end that every request is accounted for exactly once.
func TestShedderStress(t *testing.T) {
	for _, arrival := range []bool{false, true} {
		t.Run(fmt.Sprintf("FreshArrivalOrder=%v", arrival), func(t *testing.T) { shedderStress(t, arrival) })
	}
}

func shedderStress(t *testing.T, arrival bool) {
	const limit = 8
	s := newShedder(t, shed.Config{Capacity: shed.Fixed(limit), MaxQueue: 4, QueueDeadline: 2 * time.Millisecond,
		StandingDeadline: time.Millisecond, FreshArrivalOrder: arrival})
	var inflight, peak atomic.Int64
	var admitted, shedN, canceled atomic.Int64
	var wg sync.WaitGroup
	const workers, ops = 16, 400
	for w := range workers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 1))
			for range ops {
				tenant := fmt.Sprint("t", rng.IntN(6))
				cost := int64(1 + rng.IntN(3))
				ctx, cancel := context.WithTimeout(context.Background(), time.Duration(rng.IntN(3000))*time.Microsecond)
				var rel func()
				var err error
				if rng.IntN(4) == 0 {
					rel, err = s.TryAcquire(tenant, rng.IntN(2), cost)
				} else {
					rel, err = s.Acquire(ctx, tenant, rng.IntN(2), cost)
				}
				cancel()
				switch {
				case err == nil:
					admitted.Add(1)
					n := inflight.Add(cost)
					if n > limit && n != cost {
						t.Errorf("in flight %d > limit %d", n, limit)
					}
					peak.Store(max(peak.Load(), n))
					inflight.Add(-cost)
					rel()
				case errors.Is(err, shed.ErrShed):
					shedN.Add(1)
				default:
					require.ErrorIs(t, err, context.DeadlineExceeded)
					canceled.Add(1)
				}
			}
		})
	}
	wg.Wait()
	st := s.Stats()
	assert.Equal(t, int64(workers*ops), admitted.Load()+shedN.Load()+canceled.Load())
	assert.Equal(t, admitted.Load(), st.Admitted)
	assert.Equal(t, shedN.Load(), st.Shed())
	assert.Equal(t, canceled.Load(), st.Canceled)
	assert.Equal(t, int64(0), st.InFlight)
	assert.Equal(t, 0, st.Queued)
	t.Logf("admitted %d shed %d canceled %d peak %d", admitted.Load(), shedN.Load(), canceled.Load(), peak.Load())
}

// TestShedderStressManyTenants runs the stress mix over more tenants than
// MaxTenants keeps, past the size where direct admissions are deferred and
// applied in batches, with readers of the stats racing the writers: every
// admission reaches the totals, the kept tenants never exceed MaxTenants, and
// the buckets never show more admissions than the totals.
func TestShedderStressManyTenants(t *testing.T) {
	const limit, tenants, keep = 8, 32_000, 26_000 // 26,000 tenants fill more than directSlots
	s := newShedder(t, shed.Config{Capacity: shed.Fixed(limit), MaxQueue: 4, QueueDeadline: 2 * time.Millisecond,
		StandingDeadline: time.Millisecond, MaxTenants: keep})
	for i := range keep { // fill the table past the deferral threshold
		rel, err := s.TryAcquire(fmt.Sprint("t", i), 0, 1)
		require.NoError(t, err)
		rel()
	}
	var admitted, refused atomic.Int64
	admitted.Store(keep)
	var wg sync.WaitGroup
	const workers, ops = 4, 1500
	for w := range workers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 2))
			for range ops {
				rel, err := s.TryAcquire(fmt.Sprint("t", rng.IntN(tenants)), rng.IntN(2), int64(1+rng.IntN(3)))
				if err != nil {
					require.ErrorIs(t, err, shed.ErrShed)
					refused.Add(1)
					continue
				}
				admitted.Add(1)
				rel()
			}
		})
	}
	wg.Go(func() { // a reader, as a metrics scrape would be
		for range 20 {
			var sum int64
			for _, b := range s.Buckets() {
				sum += b.Admitted
			}
			st := s.Stats() // after the buckets: the total only grows
			if st.Tenants > keep {
				t.Errorf("%d tenants kept, MaxTenants %d", st.Tenants, keep)
			}
			if sum > st.Admitted {
				t.Errorf("buckets admitted %d > total %d", sum, st.Admitted)
			}
		}
	})
	wg.Wait()
	st := s.Stats()
	assert.Equal(t, admitted.Load(), st.Admitted)
	assert.Equal(t, refused.Load(), st.Shed())
	assert.LessOrEqual(t, st.Tenants, keep)
	assert.Positive(t, st.Reclaimed, "tenants beyond MaxTenants were evicted")
	assert.Equal(t, int64(0), st.InFlight)
}

// TestShedderQueuedHandOffAllocs: under overload every request queues, and a
// release hands its slot to the next waiter under the Shedder's lock. That
// path, and the waiter's return, allocate nothing once warm (an allocation
// under the lock can stop for a GC assist while every arrival queues behind
// it).
func TestShedderQueuedHandOffAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's sync.Pool drops items at random")
	}
	synctest.Test(t, func(t *testing.T) {
		s := newShedder(t, shed.Config{Capacity: shed.Fixed(1)})
		rel, err := s.TryAcquire("holder", 0, 1)
		require.NoError(t, err)
		const waiters, runs = 64, 50
		got := make(chan func(), waiters)
		for i := range waiters {
			go func() {
				r, err := s.Acquire(context.Background(), fmt.Sprint("t", i%8), i%2, 1)
				if err != nil {
					r = nil
				}
				got <- r
			}()
		}
		synctest.Wait()
		require.Equal(t, waiters, s.Stats().Queued)
		handOff := func() {
			rel()
			rel = <-got // the admitted waiter's release
			if rel == nil {
				panic("a queued request was shed")
			}
		}
		handOff() // the first Acquire to return fills the waiter pool
		allocs := testing.AllocsPerRun(runs, handOff)
		assert.Zero(t, allocs, "allocations per queued hand-off")
		st := s.Stats()
		assert.Equal(t, waiters-runs-2, st.Queued)
		assert.Equal(t, int64(1), st.InFlight)
		assert.Equal(t, int64(runs+3), st.Admitted)
		s.Close()
		rel()
		for range waiters - runs - 2 {
			assert.Nil(t, <-got, "Close sheds the rest")
		}
	})
}
