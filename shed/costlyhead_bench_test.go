package shed_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/tierkit/tierkit/shed"
)

// BenchmarkPopCostlyHead is a Pop whose head, on the fresh list, costs many
// quanta, while over tenants over their share wait on the old list (the
// Shedder holds its lock for it): the rounds that would serve nobody are
// granted at once (skipRounds), after a visit of every tenant of the fresh
// list, however many are over their share.
func BenchmarkPopCostlyHead(b *testing.B) {
	for _, over := range []int{50_000} {
		for _, cost := range []int64{100, 1_000, 100_000} {
			b.Run(fmt.Sprintf("over=%d/cost=%d", over, cost), func(b *testing.B) {
				s, now := costlyHeadScheduler(b, over)
				b.ReportAllocs()
				for b.Loop() {
					if _, _, err := s.Push(now, "costly", 0, cost, -1); err != nil {
						b.Fatal(err)
					}
					if v, _, ok := s.Pop(now, math.MaxInt64, nil); !ok || v != -1 {
						b.Fatalf("popped %d, %v; want the costly head", v, ok)
					}
				}
			})
		}
	}
}

// costlyHeadScheduler returns a Scheduler with quantum 1 and over tenants on
// the old list, each over its share (a request shed) with a request of cost
// 2 queued, and the time to use (the clock does not move, so they stay
// over).
func costlyHeadScheduler(tb testing.TB, over int) (*shed.Scheduler[int], time.Time) {
	s, err := shed.NewScheduler[int](shed.Config{Quantum: 1, MaxQueue: 1,
		MaxQueueCost: math.MaxInt64, MaxTenants: over + 1})
	if err != nil {
		tb.Fatal(err)
	}
	now := time.Unix(1_700_000_000, 0)
	for i, name := range tenantNames(over) {
		if _, _, err := s.Push(now, name, 0, 2, i); err != nil {
			tb.Fatal(err)
		}
		if _, _, err := s.Push(now, name, 0, 2, i); err == nil {
			tb.Fatal("a second request was queued; want it shed")
		}
	}
	// One quantum covers no head: the visits move every tenant, over its
	// share, to the old list, whose head then does not fit.
	if _, _, ok := s.Pop(now, 0, nil); ok {
		tb.Fatal("popped with no capacity")
	}
	return s, now
}
