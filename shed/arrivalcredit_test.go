package shed_test

import (
	"math"
	"testing"
	"time"

	"github.com/tierkit/tierkit/shed"
)

// TestFreshArrivalHeadThatDoesNotFitGrantsNoCredit: with FreshArrivalOrder, a
// visit serves the head the tenant had queued when it began whatever its
// deficit. A head that did not fit in the free capacity used to be granted
// its cost as deficit all the same; once it left the queue (canceled here,
// or expired), the tenant kept that credit and, now over its share, was
// served from it ahead of a tenant under its share.
func TestFreshArrivalHeadThatDoesNotFitGrantsNoCredit(t *testing.T) {
	s, err := shed.NewScheduler[string](shed.Config{FreshArrivalOrder: true, Quantum: 1,
		MaxQueue: 10, MaxQueueCost: 1000, QueueDeadline: time.Second, StandingDeadline: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1000, 0)
	big, _, err := s.Push(now, "a", 0, 100, "a-big")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Push(now, "b", 0, 5, "b"); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := s.Pop(now, 10, nil); ok { // a's head does not fit
		t.Fatal("a's head of cost 100 popped with 10 free")
	}
	now = now.Add(time.Millisecond)
	// a's head leaves for its deadline (a shed: a is now over its share),
	// and a queues more.
	if !s.Remove(now, big, shed.ReasonQueueDeadline) {
		t.Fatal("remove")
	}
	if _, _, err := s.Push(now, "a", 0, 50, "a-next"); err != nil {
		t.Fatal(err)
	}
	v, _, ok := s.Pop(now, math.MaxInt64, nil)
	if !ok || v != "b" {
		t.Fatalf("popped %q, want b: a, over its share, was served from the credit granted to a head that never ran, ahead of b, under its share", v)
	}
}
