package shed_test

import (
	"context"
	"errors"
	"math"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tierkit/tierkit/shed"
)

// Edge cases found in a review: a head that leaves the queue must not hold
// back what fits behind it, and extreme costs, quanta and deadlines must
// saturate instead of overflowing.

// TestCanceledHeadUnblocksQueue: a queued request that does not fit blocks
// the cheaper one behind it; when it is canceled, the cheaper one fits in the
// free capacity and should be admitted, not left to its deadline.
func TestCanceledHeadUnblocksQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, err := shed.New(shed.Config{Capacity: shed.Fixed(2), QueueDeadline: 200 * time.Millisecond,
			StandingDeadline: 200 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		hold, err := s.Acquire(context.Background(), "a", 0, 1) // in flight 1 of 2
		if err != nil {
			t.Fatal(err)
		}
		defer hold()
		ctxX, cancelX := context.WithCancel(context.Background())
		go s.Acquire(ctxX, "x", 0, 2) // does not fit: queues at the head
		synctest.Wait()
		type res struct {
			err error
			at  time.Duration
		}
		start := time.Now()
		done := make(chan res, 1)
		go func() {
			rel, err := s.Acquire(context.Background(), "y", 0, 1) // fits, but queues behind x
			if rel != nil {
				rel()
			}
			done <- res{err, time.Since(start)}
		}()
		synctest.Wait()
		time.Sleep(10 * time.Millisecond)
		cancelX() // x leaves the queue: y fits in the free capacity now
		synctest.Wait()
		select {
		case r := <-done:
			if r.err != nil {
				t.Fatalf("y: %v", r.err)
			}
		default:
			time.Sleep(time.Second)
			r := <-done
			t.Fatalf("y not admitted after x was canceled with capacity free (stats %+v); later: err=%v after %v",
				s.Stats(), r.err, r.at)
		}
	})
}

// TestExpiredHeadUnblocksQueue: the same when the blocking head is shed
// at its deadline by the sweep.
func TestExpiredHeadUnblocksQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, err := shed.New(shed.Config{Capacity: shed.Fixed(2), QueueDeadline: 100 * time.Millisecond,
			StandingDeadline: 100 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		hold, err := s.Acquire(context.Background(), "a", 0, 1) // in flight 1 of 2, held long
		if err != nil {
			t.Fatal(err)
		}
		defer hold()
		errX := make(chan error, 1)
		go func() { _, err := s.Acquire(context.Background(), "x", 0, 2); errX <- err }()
		synctest.Wait()
		time.Sleep(50 * time.Millisecond)
		errY := make(chan error, 1)
		go func() {
			rel, err := s.Acquire(context.Background(), "y", 0, 1)
			if rel != nil {
				rel()
			}
			errY <- err
		}()
		synctest.Wait()
		time.Sleep(60 * time.Millisecond) // x's deadline passed, y's has 40 ms left
		synctest.Wait()
		if err := <-errX; !errors.Is(err, shed.ErrShed) {
			t.Fatalf("x: %v", err)
		}
		select {
		case err := <-errY:
			if err != nil {
				t.Fatalf("y: %v", err)
			}
		default:
			time.Sleep(time.Second)
			t.Fatalf("y still queued with free capacity after x expired; later y got %v (stats %+v)", <-errY, s.Stats())
		}
	})
}

// TestHugeCostFastPath: with cost in flight, a request of cost
// MaxInt64 must not be admitted (inflight+cost overflows).
func TestHugeCostFastPath(t *testing.T) {
	s, err := shed.New(shed.Config{Capacity: shed.Fixed(4)})
	if err != nil {
		t.Fatal(err)
	}
	r1, err := s.TryAcquire("a", 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer r1()
	r2, err := s.TryAcquire("b", 0, math.MaxInt64)
	if err == nil {
		st := s.Stats()
		r2()
		t.Fatalf("cost MaxInt64 admitted next to cost 1 in flight (limit 4): InFlight %d", st.InFlight)
	}
}

// TestHugeCostBucketBound: the bucket's cost bound must hold for any cost.
func TestHugeCostBucketBound(t *testing.T) {
	s, err := shed.NewScheduler[int](shed.Config{MaxQueueCost: 10})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	if _, _, err := s.Push(now, "a", 0, 5, 1); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Push(now, "a", 0, math.MaxInt64, 2); err == nil {
		t.Fatalf("bucket holding cost 5 accepted cost MaxInt64 with MaxQueueCost 10: QueuedCost %d", s.Stats().QueuedCost)
	}
}

// TestLargeCostPopIsQuick: a single queued request of a large cost (alone in
// its bucket, which MaxQueueCost allows) must be popped at once. The deficit
// round robin adds one quantum per round: visiting the tenant round after
// round took 2^40 turns under the lock (28 s at 2^31).
func TestLargeCostPopIsQuick(t *testing.T) {
	s, err := shed.NewScheduler[int](shed.Config{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	if _, _, err := s.Push(now, "a", 0, 1<<40, 1); err != nil {
		t.Fatal(err)
	}
	done := make(chan bool, 1)
	go func() { _, _, ok := s.Pop(now, math.MaxInt64, nil); done <- ok }()
	select {
	case ok := <-done:
		if !ok {
			t.Fatal("not popped")
		}
	case <-time.After(30 * time.Second): // a bound for a hang, not a timing
		t.Fatal("Pop of one request of cost 2^40 still running after 30 s")
	}
}

// TestHugeQueueDeadline: a QueueDeadline of the largest Duration (no
// deadline, in effect) must not shed at once.
func TestHugeQueueDeadline(t *testing.T) {
	s, err := shed.NewScheduler[int](shed.Config{QueueDeadline: math.MaxInt64, StandingDeadline: math.MaxInt64})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	s.Admit(now, "z", 0, 1) // start the scheduler's clock
	now = now.Add(time.Millisecond)
	_, dl, err := s.Push(now, "a", 0, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	var shed int
	s.Expire(now.Add(time.Millisecond), func(int) { shed++ })
	if shed != 0 || dl.Before(now) {
		t.Fatalf("request shed %d times 1 ms after queueing; deadline %v is before now %v", shed, dl, now)
	}
}

// TestShareLevelAfterIdle: the share level is the previous window's; after
// an hour with nothing served there is none, so a tenant whose queue builds
// up briefly then is not marked over its share by the level of a flood an
// hour ago.
func TestShareLevelAfterIdle(t *testing.T) {
	s, err := shed.NewScheduler[int](shed.Config{MaxQueue: 4, OverShareWindow: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1000, 0)
	// A flood: its bucket fills (a shed marks it over), it is served from the old list.
	for i := range 5 {
		s.Push(now, "flood", 0, 1, i)
	}
	for range 4 {
		if _, _, ok := s.Pop(now, math.MaxInt64, nil); !ok {
			t.Fatal("pop")
		}
	}
	// An hour later, with nothing queued or served since, a tenant under its
	// share queues 4 requests of cost 2 during a dip and is served.
	now = now.Add(time.Hour)
	for i := range 4 {
		if _, _, err := s.Push(now, "normal", 0, 2, i); err != nil {
			t.Fatal(err)
		}
	}
	for range 4 {
		if _, _, ok := s.Pop(now, math.MaxInt64, nil); !ok {
			t.Fatal("pop")
		}
	}
	st := s.Stats()
	if st.ShareLevel != 0 || st.OverShareByLevel != 0 {
		t.Fatalf("after an hour idle: ShareLevel %d (want 0: nothing was backlogged over its share in the previous window), OverShareByLevel %d",
			st.ShareLevel, st.OverShareByLevel)
	}
}

// TestQuantumWeightSaturates: Quantum x weight overflows to 0 and the
// deficit round robin never grants credit: Pop spins forever.
func TestQuantumWeightSaturates(t *testing.T) {
	s, err := shed.NewScheduler[int](shed.Config{Quantum: 1 << 62, Weights: map[string]int{"a": 4}})
	if err != nil {
		t.Skip("rejected:", err)
	}
	now := time.Now()
	if _, _, err := s.Push(now, "a", 0, 1, 1); err != nil {
		t.Fatal(err)
	}
	done := make(chan bool, 1)
	go func() { _, _, ok := s.Pop(now, math.MaxInt64, nil); done <- ok }()
	select {
	case ok := <-done:
		if !ok {
			t.Fatal("not popped")
		}
	case <-time.After(30 * time.Second): // a bound for a hang, not a timing
		t.Fatal("Pop still running after 2 s (Quantum 2^62 x weight 4 wraps to 0)")
	}
}

// TestMaxTenantsReclaimsIdle: with one tenant idle among MaxTenants, a new
// tenant should evict it rather than exceed MaxTenants.
func TestMaxTenantsReclaimsIdle(t *testing.T) {
	exceeded := 0
	for trial := range 50 {
		s, _ := shed.NewScheduler[int](shed.Config{MaxTenants: 16, MaxQueue: 100})
		now := time.Now()
		for i := range 15 {
			s.Push(now, string(rune('A'+i)), 0, 1, i)
		}
		s.Admit(now, "idle", 0, 1)
		s.Admit(now, "new", 0, 1)
		if n := s.Stats().Tenants; n > 16 {
			exceeded++
		}
		_ = trial
	}
	if exceeded > 0 {
		t.Fatalf("MaxTenants 16 exceeded in %d of 50 trials although an idle tenant could be reclaimed", exceeded)
	}
}

// TestShareLevelNotUsedAfterIdle: the level is none as soon as the scheduler
// sees a time past the window after the level's own, before anything is served
// (arrivals shed on arrival use it, and Stats reports it).
func TestShareLevelNotUsedAfterIdle(t *testing.T) {
	s, err := shed.NewScheduler[int](shed.Config{MaxQueue: 4, OverShareWindow: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1000, 0)
	for i := range 5 { // a flood: its bucket fills, a shed marks it over
		s.Push(now, "flood", 0, 1, i)
	}
	for range 4 {
		s.Pop(now, math.MaxInt64, nil)
	}
	now = now.Add(time.Second) // the next window's level comes from this one
	s.Push(now, "flood", 0, 1, 5)
	s.Pop(now, math.MaxInt64, nil)
	level := s.Stats().ShareLevel
	if level == 0 {
		t.Fatal("no share level after the flood: the test sets nothing up")
	}
	now = now.Add(time.Hour)
	if _, _, err := s.Push(now, "normal", 0, 1, 99); err != nil {
		t.Fatal(err)
	}
	if got := s.Stats().ShareLevel; got != 0 {
		t.Fatalf("ShareLevel %d an hour after the flood (was %d), before anything is served; want 0", got, level)
	}
}
