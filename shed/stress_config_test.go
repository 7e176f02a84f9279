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

	"github.com/tierkit/tierkit/shed"
)

func TestStressConfigSwaps(t *testing.T) {
	const limit = 8
	s, err := shed.New(shed.Config{Capacity: shed.Fixed(limit), QueueDeadline: 5 * time.Millisecond,
		StandingDeadline: 2 * time.Millisecond, MaxQueue: 4, MaxQueueCost: 8, MaxTenants: 6, IdleTimeout: time.Millisecond,
		FreshArrivalOrder: true, ShedOnArrival: true, OverShareWindow: 20 * time.Millisecond, Priorities: 3})
	if err != nil {
		t.Fatal(err)
	}
	var held atomic.Int64
	var over atomic.Int64
	// every call ends admitted, shed or canceled, and Stats counts it once
	var calls, admitted, shedN, canceled atomic.Int64
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 1))
			for range 1500 {
				ctx, cancel := context.WithTimeout(context.Background(), time.Duration(r.IntN(3000))*time.Microsecond)
				cost := int64(1 + r.IntN(3))
				calls.Add(1)
				var rel func()
				var err error
				if r.IntN(4) == 0 {
					rel, err = s.TryAcquire(fmt.Sprint("t", r.IntN(10)), r.IntN(4)-1, cost)
				} else {
					rel, err = s.Acquire(ctx, fmt.Sprint("t", r.IntN(10)), r.IntN(4)-1, cost)
				}
				cancel()
				switch {
				case err == nil:
					admitted.Add(1)
				case errors.Is(err, shed.ErrShed):
					shedN.Add(1)
				default:
					canceled.Add(1)
				}
				if err == nil {
					if h := held.Add(cost); h > limit && h != cost {
						over.Add(1)
					}
					time.Sleep(time.Duration(r.IntN(200)) * time.Microsecond)
					held.Add(-cost)
					rel()
				} else if !errors.Is(err, shed.ErrShed) && !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("unexpected %v", err)
				}
			}
		})
	}
	wg.Go(func() {
		for i := range 200 {
			time.Sleep(300 * time.Microsecond)
			s.SetConfig(shed.Config{Capacity: shed.Fixed(limit), QueueDeadline: time.Duration(1+i%5) * time.Millisecond,
				MaxQueue: 1 + i%4, MaxTenants: 3 + i%5, IdleTimeout: time.Millisecond, Priorities: 1 + i%3,
				Weights: map[string]int{"t1": 1 + i%3}, FreshArrivalOrder: i%2 == 0, ShedOnArrival: true})
			st := s.Stats()
			if n := st.Admitted + st.Shed() + st.Canceled + int64(st.Queued); n > calls.Load() {
				t.Errorf("Stats counts %d requests decided or queued, of %d calls made", n, calls.Load())
			}
			s.Buckets()
		}
	})
	wg.Wait()
	st := s.Stats()
	if st.InFlight != 0 || st.Queued != 0 || over.Load() != 0 {
		t.Fatalf("after all released: %+v; over-limit observations %d", st, over.Load())
	}
	if st.Admitted != admitted.Load() || st.Shed() != shedN.Load() || st.Canceled != canceled.Load() {
		t.Fatalf("Stats %+v: want Admitted %d, Shed %d, Canceled %d (of %d calls)",
			st, admitted.Load(), shedN.Load(), canceled.Load(), calls.Load())
	}
	// The kept buckets count no more than the totals (reclaimed tenants' counts stay in those).
	var adm, sh, canc int64
	for _, b := range s.Buckets() {
		adm, sh, canc = adm+b.Admitted, sh+b.Shed(), canc+b.Canceled
	}
	if adm > st.Admitted || sh > st.Shed() || canc > st.Canceled {
		t.Fatalf("kept buckets count admitted %d, shed %d, canceled %d, above the totals %+v", adm, sh, canc, st)
	}
	t.Logf("%+v", st)
}
