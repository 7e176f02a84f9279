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
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 1))
			for range 1500 {
				ctx, cancel := context.WithTimeout(context.Background(), time.Duration(r.IntN(3000))*time.Microsecond)
				cost := int64(1 + r.IntN(3))
				rel, err := s.Acquire(ctx, fmt.Sprint("t", r.IntN(10)), r.IntN(4)-1, cost)
				cancel()
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
			s.Stats()
			s.Buckets()
		}
	})
	wg.Wait()
	st := s.Stats()
	if st.InFlight != 0 || st.Queued != 0 || over.Load() != 0 {
		t.Fatalf("after all released: %+v; over-limit observations %d", st, over.Load())
	}
	var adm int64
	for _, b := range s.Buckets() {
		adm += b.Admitted
	}
	t.Logf("%+v bucket admitted sum %d", st, adm)
}
