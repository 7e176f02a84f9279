package shed_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/tierkit/tierkit/shed"
)

func Example() {
	s, err := shed.New(shed.Config{Capacity: shed.Fixed(2)})
	if err != nil {
		panic(err)
	}
	release, err := s.Acquire(context.Background(), "tenant-a", 1, 1)
	if err != nil {
		panic(err)
	}
	defer release()
	// Work runs here.
	st := s.Stats()
	fmt.Println("admitted:", st.Admitted, "in flight:", st.InFlight, "of", st.Limit)
	// Output: admitted: 1 in flight: 1 of 2
}

func ExampleShedder_TryAcquire() {
	s, _ := shed.New(shed.Config{Capacity: shed.Fixed(1)})
	release, _ := s.TryAcquire("a", 0, 1)
	_, err := s.TryAcquire("b", 0, 1)
	var se *shed.ShedError
	if errors.As(err, &se) {
		fmt.Println("shed:", errors.Is(err, shed.ErrShed), se.Reason)
	}
	release()
	// Output: shed: true no capacity
}

// The Scheduler is the pure drain order: here a tenant sending requests of cost
// 4 gets the same cost share as one sending cost 1, so it is served a quarter as
// many requests.
func ExampleScheduler() {
	s, _ := shed.NewScheduler[string](shed.Config{MaxQueue: 100, MaxQueueCost: 1000})
	now := time.Unix(0, 0)
	for range 20 {
		s.Push(now, "heavy", 0, 4, "heavy")
		s.Push(now, "light", 0, 1, "light")
	}
	served := map[string]int{}
	for range 25 {
		v, _, _ := s.Pop(now, math.MaxInt64, nil)
		served[v]++
	}
	fmt.Println("heavy:", served["heavy"], "light:", served["light"])
	// Output: heavy: 5 light: 20
}

// With ShedOnArrival, a flood's excess is shed when it arrives rather than
// after waiting for its deadline. Here one request is served per ms for 3 s
// while a flood sends 3 per ms and a light tenant one per 10 ms; from the
// second window on (once a share level is known), the flood's requests that
// could not be served in time are refused on arrival.
func ExampleConfig_shedOnArrival() {
	for _, onArrival := range []bool{false, true} {
		s, _ := shed.NewScheduler[string](shed.Config{QueueDeadline: 100 * time.Millisecond,
			StandingDeadline: 10 * time.Millisecond, MaxQueue: 1000, MaxQueueCost: 1000,
			ShedOnArrival: onArrival})
		start := time.Unix(0, 0)
		for ms := range 3000 {
			now := start.Add(time.Duration(ms) * time.Millisecond)
			for range 3 {
				s.Push(now, "flood", 0, 1, "flood")
			}
			if ms%10 == 0 {
				s.Push(now, "light", 0, 1, "light")
			}
			s.Expire(now, nil)
			s.Pop(now, math.MaxInt64, nil)
		}
		st := s.Stats()
		light := s.Tenant(nil, "light")[0]
		fmt.Printf("ShedOnArrival %v: admitted %d; for the deadline, shed on arrival %d, expired in the queue %d; light tenant shed %d\n",
			onArrival, st.Admitted, st.ShedOnArrival, st.ShedQueueDeadline-st.ShedOnArrival, light.Shed())
	}
	// Output:
	// ShedOnArrival false: admitted 3000; for the deadline, shed on arrival 0, expired in the queue 6268; light tenant shed 0
	// ShedOnArrival true: admitted 3000; for the deadline, shed on arrival 4098, expired in the queue 2193; light tenant shed 0
}
