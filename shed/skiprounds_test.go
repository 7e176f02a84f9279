package shed

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestSkipRoundsChangesNoDecision: granting the rounds that would serve nobody
// at once (skipRounds) pops the same requests in the same order as visiting
// them round after round, over random tenants, weights, priorities and costs
// up to 200 quanta, with pushes between pops.
func TestSkipRoundsChangesNoDecision(t *testing.T) {
	run := func(seed uint64, skip bool) []int {
		noSkipRounds = !skip
		defer func() { noSkipRounds = false }()
		r := rand.New(rand.NewPCG(seed, 9))
		weights := map[string]int{}
		for i := range 4 {
			weights[fmt.Sprint("t", i)] = 1 + r.IntN(4)
		}
		s, err := NewScheduler[int](Config{Quantum: 10, Weights: weights, Priorities: 2,
			MaxQueue: 1000, MaxQueueCost: math.MaxInt64, FreshArrivalOrder: seed%2 == 0})
		if err != nil {
			t.Fatal(err)
		}
		now := time.Unix(100, 0)
		var order []int
		id := 0
		for range 40 {
			for range 1 + r.IntN(8) {
				tenant := fmt.Sprint("t", r.IntN(6))
				if _, _, err := s.Push(now, tenant, r.IntN(2), 1+r.Int64N(2000), id); err != nil {
					t.Fatal(err)
				}
				id++
			}
			for range r.IntN(6) {
				if v, _, ok := s.Pop(now, math.MaxInt64, nil); ok {
					order = append(order, v)
				}
			}
			now = now.Add(time.Millisecond)
		}
		for {
			v, _, ok := s.Pop(now, math.MaxInt64, nil)
			if !ok {
				break
			}
			order = append(order, v)
		}
		if len(order) != id {
			t.Fatalf("seed %d: popped %d of %d", seed, len(order), id)
		}
		return order
	}
	for seed := range uint64(30) {
		if a, b := run(seed, true), run(seed, false); !slices.Equal(a, b) {
			t.Fatalf("seed %d: skipping rounds changed the order:\n%v\n%v", seed, a, b)
		}
	}
}
