package shed_test

import (
	"math"
	"testing"
	"time"

	"github.com/tierkit/tierkit/shed"
)

// TestWaitNotNegativeWhenClockGoesBack: the Scheduler takes now from its
// caller, whose clock may step back (the wheel already allows for it). A
// request popped at a now before its enqueue time waited no time: a
// negative wait would make WaitTotal, a monotonic counter, go down.
func TestWaitNotNegativeWhenClockGoesBack(t *testing.T) {
	s, err := shed.NewScheduler[int](shed.Config{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1000, 0)
	s.Push(now, "a", 0, 1, 1)
	if _, _, ok := s.Pop(now.Add(-50*time.Millisecond), math.MaxInt64, nil); !ok {
		t.Fatal("pop")
	}
	st := s.Stats()
	b := s.Tenant(nil, "a")[0]
	if st.WaitTotal < 0 || b.WaitTotal < 0 || b.WaitMax < 0 {
		t.Fatalf("after the clock stepped back: Stats.WaitTotal %v, bucket WaitTotal %v, WaitMax %v, want none negative",
			st.WaitTotal, b.WaitTotal, b.WaitMax)
	}
}
