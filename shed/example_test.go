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
