package shed

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestPopCostlyHeadSkipsAfterItsListsRound: a head of 100,000 quanta alone
// on the fresh list, with 1,000 tenants over their share on the old list, is
// served after one visit that serves nobody (then skipRounds grants its
// rounds). The skip waited for more such visits than the tenants on both
// lists: 1,002 here, one per round of quantum 1, under the Shedder's lock.
func TestPopCostlyHeadSkipsAfterItsListsRound(t *testing.T) {
	const over = 1000
	s, err := NewScheduler[int](Config{Quantum: 1, MaxQueue: 1, MaxQueueCost: math.MaxInt64, MaxTenants: over + 1})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_700_000_000, 0)
	for i := range over {
		name := fmt.Sprint("over-", i)
		if _, _, err := s.Push(now, name, 0, 2, i); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.Push(now, name, 0, 2, i); err == nil {
			t.Fatal("a second request was queued; want it shed")
		}
	}
	// Every visit moves a tenant, over its share, to the old list; the old
	// list's head then does not fit.
	if _, _, ok := s.Pop(now, 0, nil); ok {
		t.Fatal("popped with no capacity")
	}
	if s.fresh.n != 0 || s.old.n != over {
		t.Fatalf("fresh %d, old %d tenants; want 0, %d", s.fresh.n, s.old.n, over)
	}
	if _, _, err := s.Push(now, "costly", 0, 100_000, -1); err != nil {
		t.Fatal(err)
	}
	visits := 0
	spinHook = func() { visits++ }
	defer func() { spinHook = nil }()
	if v, _, ok := s.Pop(now, math.MaxInt64, nil); !ok || v != -1 {
		t.Fatalf("popped %d, %v; want the costly head", v, ok)
	}
	if visits > 1 {
		t.Fatalf("%d visits served nobody before the skip; want 1 (its list's length)", visits)
	}
}

// TestSkipRoundsChangesNoDecisionAcrossLists is TestSkipRoundsChangesNoDecision
// with tenants that change lists while Pop serves one: requests shed on full
// buckets and at short deadlines mark tenants over their share (moved to the
// old list on their visit, or ahead of a head that does not fit), and short
// windows let the marks run out (moved back to the fresh list); at times the
// clock steps back. The skip must wait until every tenant of the list served
// had its visit (with FreshArrivalOrder, two: seed 16 fails with one).
func TestSkipRoundsChangesNoDecisionAcrossLists(t *testing.T) {
	for seed := range uint64(400) {
		a, b := runAcrossLists(t, seed, true), runAcrossLists(t, seed, false)
		if !slices.Equal(a, b) {
			t.Fatalf("seed %d: skipping rounds changed the decisions:\n%v\n%v", seed, a, b)
		}
	}
}

// runAcrossLists returns the decisions of one random run: each request's id
// as it is popped or expired (negated), and the Stats' totals at the end.
func runAcrossLists(t *testing.T, seed uint64, skip bool) []int64 {
	back := 0
	if seed%4 >= 2 {
		back = 500 // the clock steps back at times
	}
	noSkipRounds = !skip
	defer func() { noSkipRounds = false }()
	r := rand.New(rand.NewPCG(seed, 11))
	weights := map[string]int{}
	for i := range 6 {
		weights[fmt.Sprint("t", i)] = 1 + r.IntN(3)
	}
	s, err := NewScheduler[int](Config{Quantum: 1 + r.Int64N(4), Weights: weights, Priorities: 2,
		MaxQueue: 1 + r.IntN(4), MaxQueueCost: math.MaxInt64, FreshArrivalOrder: seed%2 == 0,
		QueueDeadline: 6 * time.Millisecond, StandingDeadline: 3 * time.Millisecond,
		OverShareWindow: time.Duration(1+r.IntN(4)) * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(100, 0)
	var got []int64
	expired := func(v int) { got = append(got, -int64(v)) }
	id := 0
	for range 200 {
		for range r.IntN(5) {
			s.Push(now, fmt.Sprint("t", r.IntN(8)), r.IntN(2), 1+r.Int64N(60), id)
			id++
		}
		avail := r.Int64N(40)
		for range r.IntN(4) {
			if v, c, ok := s.Pop(now, avail, expired); ok {
				got = append(got, int64(v))
				avail -= c
			}
		}
		now = now.Add(time.Duration(r.IntN(1500)-back) * time.Microsecond)
	}
	for {
		v, _, ok := s.Pop(now, math.MaxInt64, expired)
		if !ok {
			break
		}
		got = append(got, int64(v))
	}
	st := s.Stats()
	return append(got, st.Admitted, st.ShedQueueDeadline, st.OverShareByShed, st.OverShareByLevel,
		st.ShareLevel, int64(st.WaitTotal))
}
