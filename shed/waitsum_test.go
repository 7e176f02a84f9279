package shed_test

import (
	"math"
	"testing"
	"time"

	"github.com/tierkit/tierkit/shed"
)

// TestWaitTotalSaturates: WaitTotal, a monotonic counter of nanoseconds,
// saturates at the largest Duration as AdmittedCost does, rather than wrap
// negative (MeanWait with it). 2^63 ns is about 292 years of waiting in
// all: 100,000 requests a second served after 50 ms in the queue add that
// up in 21 days. Here two requests wait 200 years each (a QueueDeadline of
// the largest Duration, time given explicitly).
func TestWaitTotalSaturates(t *testing.T) {
	s, err := shed.NewScheduler[int](shed.Config{QueueDeadline: math.MaxInt64, StandingDeadline: math.MaxInt64})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1000, 0)
	for i := range 2 {
		if _, _, err := s.Push(now, "a", 0, 1, i); err != nil {
			t.Fatal(err)
		}
	}
	later := now.Add(200 * 365 * 24 * time.Hour)
	for range 2 {
		if _, _, ok := s.Pop(later, math.MaxInt64, nil); !ok {
			t.Fatal("pop")
		}
	}
	st := s.Stats()
	b := s.Tenant(nil, "a")[0]
	if st.WaitCount != 2 || b.WaitCount != 2 {
		t.Fatalf("WaitCount %d, bucket %d, want 2", st.WaitCount, b.WaitCount)
	}
	if st.WaitTotal != math.MaxInt64 || b.WaitTotal != math.MaxInt64 {
		t.Fatalf("after two waits of 200 years: Stats.WaitTotal %v, bucket WaitTotal %v (mean %v), want both saturated at %v",
			st.WaitTotal, b.WaitTotal, b.MeanWait(), time.Duration(math.MaxInt64))
	}
	if want := 200 * 365 * 24 * time.Hour; b.WaitMax != want {
		t.Fatalf("WaitMax %v, want %v", b.WaitMax, want)
	}
}
