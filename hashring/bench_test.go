package hashring_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/cespare/xxhash/v2"

	"github.com/tierkit/tierkit/hashring"
)

var (
	sinkID  string
	sinkIDs []string
)

// benchKeys are the lookup keys: 1<<14 distinct strings, cycled.
var benchKeys = func() []string {
	keys := make([]string, 1<<14)
	for i := range keys {
		keys[i] = fmt.Sprintf("user:%d:profile", i)
	}
	return keys
}()

// rendezvous is the naive baseline: weighted rendezvous hashing (HRW with the
// -w/ln(u) score of Schindelhauer and Schomaker), exact in expectation and minimal in
// movement, but O(n) per lookup.
type rendezvous struct {
	nodes []hashring.Node
	seeds []uint64
}

func newRendezvous(nodes []hashring.Node) *rendezvous {
	r := &rendezvous{nodes: nodes, seeds: make([]uint64, len(nodes))}
	for i, n := range nodes {
		r.seeds[i] = xxhash.Sum64String(n.ID)
	}
	return r
}

func (r *rendezvous) lookup(key string) string {
	h := xxhash.Sum64String(key)
	best, bestScore := 0, math.Inf(-1)
	for i, s := range r.seeds {
		x := (h ^ s) * 0x9e3779b97f4a7c15
		x ^= x >> 29
		u := (float64(x>>11) + 0.5) / (1 << 53)
		if score := -r.nodes[i].Weight / math.Log(u); score > bestScore {
			best, bestScore = i, score
		}
	}
	return r.nodes[best].ID
}

func BenchmarkLookup(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		nodes := coreNodes(n, 1)
		r, err := hashring.New(hashring.Config{}, nodes)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("ring/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				sinkID, _ = r.Lookup(benchKeys[i&(len(benchKeys)-1)])
				i++
			}
			b.ReportMetric(r.Stats().MaxShareRatio, "max-share/expected")
		})
		b.Run(fmt.Sprintf("ring-parallel/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				i, id := 0, ""
				for pb.Next() {
					id, _ = r.Lookup(benchKeys[i&(len(benchKeys)-1)])
					i++
				}
				_ = id
			})
		})
		naive := newRendezvous(nodes)
		b.Run(fmt.Sprintf("naive-rendezvous/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				sinkID = naive.lookup(benchKeys[i&(len(benchKeys)-1)])
				i++
			}
		})
	}
}

func BenchmarkLookupN(b *testing.B) {
	r, err := hashring.New(hashring.Config{}, coreNodes(100, 1))
	if err != nil {
		b.Fatal(err)
	}
	dst := make([]string, 0, 3)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		dst = r.AppendLookupNHash(dst[:0], xxhash.Sum64String(benchKeys[i&(len(benchKeys)-1)]), 3)
		i++
	}
	sinkIDs = dst
}

func BenchmarkLookupBounded(b *testing.B) {
	r, err := hashring.New(hashring.Config{}, coreNodes(100, 1))
	if err != nil {
		b.Fatal(err)
	}
	var loads hashring.Loads
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			id, _ := r.LookupBounded(benchKeys[i&(len(benchKeys)-1)], 1.25, &loads)
			loads.Acquire(id)
			loads.Release(id)
			i++
		}
	})
}

func BenchmarkBuild(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		nodes := coreNodes(n, 1)
		b.Run(fmt.Sprintf("new/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := hashring.New(hashring.Config{}, nodes); err != nil {
					b.Fatal(err)
				}
			}
		})
		r, _ := hashring.New(hashring.Config{}, nodes)
		b.Run(fmt.Sprintf("remove/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			var moved float64
			for b.Loop() {
				next, err := r.Remove(nodes[n/2].ID)
				if err != nil {
					b.Fatal(err)
				}
				st := next.Stats()
				moved = st.MovedShare / st.OptimalMovedShare
			}
			b.ReportMetric(moved, "moved/optimal")
		})
	}
}
