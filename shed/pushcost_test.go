package shed_test

import (
	"testing"
	"time"

	"github.com/tierkit/tierkit/shed"
)

// TestSchedulerPushCostAtLeastOne: a cost below 1 counts as 1, as in
// Acquire. Taken as given, a negative cost lowered the bucket's queued cost,
// so the bucket then held more than MaxQueueCost.
func TestSchedulerPushCostAtLeastOne(t *testing.T) {
	s, err := shed.NewScheduler[int](shed.Config{MaxQueue: 100, MaxQueueCost: 10})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1000, 0)
	if _, _, err := s.Push(now, "a", 0, -1000, 0); err != nil {
		t.Fatal(err)
	}
	for i := 1; i < 100; i++ {
		s.Push(now, "a", 0, 10, i) // shed once the bucket holds its bound
	}
	if b := s.Tenant(nil, "a")[0]; b.QueuedCost > 10 || b.Queued > 1 {
		t.Fatalf("bucket holds %d requests of cost %d, want at most MaxQueueCost 10 (the first counts as cost 1)", b.Queued, b.QueuedCost)
	}
}
