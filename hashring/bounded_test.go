package hashring_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/hashring"
)

func TestLookupBoundedRejectsFactor(t *testing.T) {
	r, err := hashring.New(hashring.Config{}, equalNodes(3))
	require.NoError(t, err)
	for _, c := range []float64{0, 0.99, -1, math.NaN(), math.Inf(1)} {
		_, err := r.LookupBounded("k", c, &hashring.Loads{})
		assert.ErrorIs(t, err, hashring.ErrBadLoadFactor, "c=%v", c)
	}
}

// TestLookupBoundedBound routes a skewed stream (one hot key takes half the traffic)
// with random completions and checks at every assignment that the chosen node then
// holds no more than ceil(c x its weighted share of the in-flight total), the
// total counting the new request. (Completions shrink the total, so the bound is a
// property of each assignment, as in the paper, not of every instant.)
func TestLookupBoundedBound(t *testing.T) {
	tests := []struct {
		name  string
		nodes []hashring.Node
		c     float64
	}{
		{"equal c=1.25", equalNodes(10), 1.25},
		{"equal c=1", equalNodes(7), 1},
		{"cores c=1.1", coreNodes(20, 11), 1.1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := hashring.New(hashring.Config{}, tt.nodes)
			require.NoError(t, err)
			total := 0.0
			for _, n := range tt.nodes {
				total += n.Weight
			}
			var loads hashring.Loads
			rng := rand.New(rand.NewPCG(1, 2))
			var inflight []string
			spilled := 0
			for step := range 20000 {
				if len(inflight) > 0 && rng.IntN(100) < 45 {
					i := rng.IntN(len(inflight))
					loads.Release(inflight[i])
					inflight[i] = inflight[len(inflight)-1]
					inflight = inflight[:len(inflight)-1]
					continue
				}
				key := "hot"
				if rng.IntN(2) == 0 {
					key = fmt.Sprint("k", rng.IntN(1000))
				}
				owner, _ := r.Lookup(key)
				id, err := r.LookupBounded(key, tt.c, &loads)
				require.NoError(t, err)
				if id != owner {
					spilled++
				}
				loads.Acquire(id)
				inflight = append(inflight, id)
				w := 0.0
				for _, n := range tt.nodes {
					if n.ID == id {
						w = n.Weight
					}
				}
				bound := math.Ceil(tt.c * float64(loads.Total()) * w / total)
				require.LessOrEqual(t, float64(loads.Load(id)), bound, "step %d node %s", step, id)
			}
			assert.Positive(t, spilled, "the hot key spilled over")
			st := loads.Stats()
			assert.Equal(t, int64(len(inflight)), st.InFlight)
			assert.Equal(t, st.Acquires-st.Releases, uint64(st.InFlight))
		})
	}
}

func TestLookupBoundedPrefersOwner(t *testing.T) {
	r, err := hashring.New(hashring.Config{}, equalNodes(5))
	require.NoError(t, err)
	var loads hashring.Loads
	for i := range 100 {
		key := fmt.Sprint("k", i)
		owner, _ := r.Lookup(key)
		got, err := r.LookupBounded(key, 1.25, &loads)
		require.NoError(t, err)
		assert.Equal(t, owner, got, "an idle ring routes to the owner")
	}
}

// fullReporter claims every node is far over any bound.
type fullReporter struct{}

func (fullReporter) Load(id string) int64 { return 1000 + int64(len(id)) }
func (fullReporter) Total() int64         { return 1 }

func TestLookupBoundedNeverFails(t *testing.T) {
	r, err := hashring.New(hashring.Config{}, []hashring.Node{{ID: "a", Weight: 1}, {ID: "bb", Weight: 1}})
	require.NoError(t, err)
	owner, _ := r.Lookup("k")
	got, err := r.LookupBounded("k", 1.5, nil)
	require.NoError(t, err)
	assert.Equal(t, owner, got, "no reporter: no load")

	got, err = r.LookupBounded("k", 1.5, fullReporter{})
	require.NoError(t, err)
	assert.Equal(t, "a", got, "least loaded relative to its bound")
}

func TestLoads(t *testing.T) {
	var l hashring.Loads
	assert.Zero(t, l.Load("a"))
	assert.False(t, l.Forget("a"))
	l.Acquire("a")
	l.Acquire("a")
	l.Acquire("b")
	assert.Equal(t, int64(2), l.Load("a"))
	assert.Equal(t, int64(3), l.Total())
	assert.False(t, l.Forget("a"), "busy")
	l.Release("a")
	l.Release("a")
	l.Release("a") // one too many: clamped, not counted
	assert.Equal(t, int64(0), l.Load("a"))
	assert.Equal(t, int64(1), l.Total())
	assert.True(t, l.Forget("a"))
	assert.Equal(t, hashring.LoadStats{InFlight: 1, Acquires: 3, Releases: 2, Nodes: 1}, l.Stats())
}

// TestConcurrentSwapAndLookup is the intended deployment: readers look up through an
// atomic.Pointer while a writer derives and publishes new rings; every answer is a
// member of the ring read, and bounded lookups with Acquire/Release stay consistent.
func TestConcurrentSwapAndLookup(t *testing.T) {
	var cur atomicRing
	r, err := hashring.New(hashring.Config{Slots: 1 << 12}, coreNodes(16, 3))
	require.NoError(t, err)
	cur.Store(r)
	var loads hashring.Loads
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for g := range 4 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 9))
			for {
				select {
				case <-stop:
					return
				default:
				}
				ring := cur.Load()
				key := fmt.Sprint("k", rng.IntN(500))
				id, err := ring.LookupBounded(key, 1.25, &loads)
				if err != nil || !ring.Contains(id) {
					t.Errorf("lookup %q: %q, %v", key, id, err)
					return
				}
				loads.Acquire(id)
				reps := ring.AppendLookupNHash(nil, rng.Uint64(), 3)
				if len(reps) != 3 {
					t.Errorf("replicas %v", reps)
				}
				loads.Release(id)
			}
		})
	}
	for i := range 200 {
		ring := cur.Load()
		nodes := ring.Nodes()
		var next *hashring.Ring
		if i%2 == 0 {
			next, err = ring.Remove(nodes[i%len(nodes)].ID)
		} else {
			next, err = ring.Add(hashring.Node{ID: fmt.Sprint("j", i), Weight: float64(26 + i%100)})
		}
		require.NoError(t, err)
		cur.Store(next)
	}
	close(stop)
	wg.Wait()
	assert.Zero(t, loads.Total())
}
