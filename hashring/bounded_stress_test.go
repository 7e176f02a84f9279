package hashring_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tierkit/tierkit/hashring"
)

// stressRings returns the rings a stress phase swaps between: a base of
// weighted nodes, then the base with a node removed, one reweighted, and
// one added. Loads outlive the swaps: they are keyed by ID.
func stressRings(t *testing.T) []*hashring.Ring {
	base, err := hashring.New(hashring.Config{Slots: 1 << 10}, []hashring.Node{
		{ID: "a", Weight: 26}, {ID: "b", Weight: 126}, {ID: "c", Weight: 64},
		{ID: "d", Weight: 32}, {ID: "e", Weight: 96},
	})
	if err != nil {
		t.Fatal(err)
	}
	removed, err := base.Remove("b")
	if err != nil {
		t.Fatal(err)
	}
	reweighted, err := base.Reweight("a", 126)
	if err != nil {
		t.Fatal(err)
	}
	added, err := base.Add(hashring.Node{ID: "f", Weight: 80})
	if err != nil {
		t.Fatal(err)
	}
	return []*hashring.Ring{base, removed, reweighted, added}
}

// maxBound returns the largest bound of id over rings for a total of t: a
// request routed by any of them saw at most that bound.
func maxBound(rings []*hashring.Ring, id string, c float64, t int64) float64 {
	b := 0.0
	for _, r := range rings {
		var w, total float64
		for _, n := range r.Nodes() {
			total += n.Weight
			if n.ID == id {
				w = n.Weight
			}
		}
		b = math.Max(b, math.Ceil(c*float64(t)*w/total))
	}
	return b
}

// TestLookupBoundedStress routes from several goroutines while a writer swaps
// rings and a forgetter retires idle counters. In each phase requests only
// arrive, so the total only grows: right after an Acquire, the node holds at
// most its bound for the current total plus the callers racing (workers - 1).
// At the end of a phase every node's count equals the requests routed to it;
// after the drain everything reads 0. With one worker nothing races and the
// bound holds exactly.
func TestLookupBoundedStress(t *testing.T) {
	for _, workers := range []int{1, 4} {
		t.Run(fmt.Sprint(workers, " workers"), func(t *testing.T) { stressBounded(t, workers) })
	}
}

// stressIDs are the IDs of every stressRings ring.
var stressIDs = []string{"a", "b", "c", "d", "e", "f"}

func stressBounded(t *testing.T, workers int) {
	const phases = 6
	rings := stressRings(t)
	var cur atomic.Pointer[hashring.Ring]
	cur.Store(rings[0])
	var loads hashring.Loads
	for phase := range phases {
		stop := stressBackground(&cur, rings, &loads)
		routed := make([][]string, workers)
		var wg sync.WaitGroup
		for g := range workers {
			wg.Go(func() { routed[g] = routeStress(t, &cur, rings, &loads, phase, g, workers) })
		}
		wg.Wait()
		want := map[string]int64{}
		for _, r := range routed {
			for _, id := range r {
				want[id]++
			}
		}
		for _, id := range stressIDs {
			if got := loads.Load(id); got != want[id] {
				t.Errorf("phase %d: %s counts %d in flight, %d were routed to it", phase, id, got, want[id])
			}
		}
		for g := range workers { // the drain, still racing swaps and Forget
			wg.Go(func() {
				for _, id := range routed[g] {
					loads.Release(id)
				}
			})
		}
		wg.Wait()
		stop()
		st := loads.Stats()
		if st.InFlight != 0 || st.Acquires != st.Releases || st.Nodes < 0 || st.Nodes > len(stressIDs) {
			t.Fatalf("phase %d: after the drain %+v", phase, st)
		}
		for _, id := range stressIDs {
			if got := loads.Load(id); got != 0 {
				t.Fatalf("phase %d: %s counts %d after the drain", phase, id, got)
			}
		}
	}
	for _, id := range stressIDs {
		loads.Forget(id)
	}
	if st := loads.Stats(); st.Nodes != 0 {
		t.Fatalf("every counter forgotten, Stats %+v", st)
	}
}

// stressBackground starts a goroutine that swaps the published ring through
// rings and one that calls Forget on every ID in turn; stop ends both.
func stressBackground(cur *atomic.Pointer[hashring.Ring], rings []*hashring.Ring, loads *hashring.Loads) (stop func()) {
	done := make(chan struct{})
	var bg sync.WaitGroup
	loop := func(step func(i int)) {
		bg.Go(func() {
			for i := 1; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				step(i)
			}
		})
	}
	loop(func(i int) { cur.Store(rings[i%len(rings)]) })
	loop(func(i int) { loads.Forget(stressIDs[i%len(stressIDs)]) })
	return func() { close(done); bg.Wait() }
}

// routeStress routes 300 requests, a third of them to one hot key, acquires
// each and checks the node's count against its bound right after; it returns
// the IDs acquired.
func routeStress(t *testing.T, cur *atomic.Pointer[hashring.Ring], rings []*hashring.Ring,
	loads *hashring.Loads, phase, g, workers int) []string {
	const c = 1.25
	rng := rand.New(rand.NewPCG(uint64(phase), uint64(g)))
	var routed []string
	for range 300 {
		key := "hot"
		if rng.IntN(3) == 0 {
			key = fmt.Sprint("k", rng.IntN(100))
		}
		id, err := cur.Load().LookupBounded(key, c, loads)
		if err != nil {
			t.Error(err)
			return routed
		}
		loads.Acquire(id)
		routed = append(routed, id)
		// Read the count before the total: both only grow in this phase.
		load := loads.Load(id)
		if b := maxBound(rings, id, c, loads.Total()); float64(load) > b+float64(workers-1) {
			t.Errorf("phase %d: %s holds %d, bound %v + %d racing", phase, id, load, b, workers-1)
		}
	}
	return routed
}
