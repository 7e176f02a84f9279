package cache_test

import (
	"container/heap"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// beladyHits returns the hits of Belady's MIN on keys with room for capacity
// entries, the most any cache of that size can score on the sequence: on a miss
// it stores the key unless the key is next requested after every cached one,
// and then evicts the cached key requested furthest in the future (a cache may
// decline to store, as tierkit's admission does, so MIN here may bypass).
func beladyHits(keys []uint64, capacity int) int {
	if capacity <= 0 {
		return 0
	}
	next := make([]int, len(keys)) // index of the key's next request, or never
	last := make(map[uint64]int, 1024)
	for i := len(keys) - 1; i >= 0; i-- {
		next[i] = math.MaxInt
		if j, ok := last[keys[i]]; ok {
			next[i] = j
		}
		last[keys[i]] = i
	}
	cached := make(map[uint64]int, capacity) // key -> its next request
	var h nextHeap                           // cached keys by next request, stale entries skipped
	hits := 0
	for i, k := range keys {
		if _, ok := cached[k]; ok {
			hits++
			cached[k] = next[i]
			heap.Push(&h, use{k, next[i]})
			continue
		}
		if next[i] == math.MaxInt {
			continue // never requested again: storing it cannot help
		}
		if len(cached) == capacity {
			far := h.top(cached)
			if far.at <= next[i] {
				continue // every cached key is needed before this one: bypass
			}
			heap.Pop(&h)
			delete(cached, far.key)
		}
		cached[k] = next[i]
		heap.Push(&h, use{k, next[i]})
	}
	return hits
}

type use struct {
	key uint64
	at  int
}

// nextHeap is a max-heap of cached keys by next request, with lazy deletion.
type nextHeap []use

func (h nextHeap) Len() int           { return len(h) }
func (h nextHeap) Less(i, j int) bool { return h[i].at > h[j].at }
func (h nextHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *nextHeap) Push(x any)        { *h = append(*h, x.(use)) }
func (h *nextHeap) Pop() any {
	old := *h
	u := old[len(old)-1]
	*h = old[:len(old)-1]
	return u
}

// top drops the stale entries (a key no longer cached, or a next request since
// replaced) and returns the live one requested furthest in the future.
func (h *nextHeap) top(cached map[uint64]int) use {
	for {
		u := (*h)[0]
		if at, ok := cached[u.key]; ok && at == u.at {
			return u
		}
		heap.Pop(h)
	}
}

// bruteHits is the most hits any policy can score on keys (tiny) with room for
// capacity entries, by trying every choice on every miss.
func bruteHits(keys []uint64, capacity int, cached map[uint64]bool) int {
	if len(keys) == 0 {
		return 0
	}
	k, rest := keys[0], keys[1:]
	if cached[k] {
		return 1 + bruteHits(rest, capacity, cached)
	}
	best := bruteHits(rest, capacity, cached) // bypass
	if len(cached) < capacity {
		cached[k] = true
		best = max(best, bruteHits(rest, capacity, cached))
		delete(cached, k)
		return best
	}
	for v := range cached {
		delete(cached, v)
		cached[k] = true
		best = max(best, bruteHits(rest, capacity, cached))
		delete(cached, k)
		cached[v] = true
	}
	return best
}

// TestBeladyMatchesBruteForce holds beladyHits to an exhaustive search on
// short random sequences.
func TestBeladyMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for trial := range 400 {
		n, alphabet, capacity := 4+r.IntN(9), 2+r.IntN(4), 1+r.IntN(3)
		keys := make([]uint64, n)
		for i := range keys {
			keys[i] = uint64(r.IntN(alphabet))
		}
		want := bruteHits(keys, capacity, map[uint64]bool{})
		require.Equal(t, want, beladyHits(keys, capacity), "trial %d: keys %v, capacity %d", trial, keys, capacity)
	}
	require.Equal(t, 0, beladyHits([]uint64{1, 1, 1}, 0))
	loop := []uint64{1, 2, 3, 1, 2, 3, 1} // a loop of 3 in room for 2
	require.Equal(t, 3, beladyHits(loop, 2))
	require.Equal(t, 3, bruteHits(loop, 2, map[uint64]bool{}))
}

// TestBeladyBound prints the most any cache of each workload's capacity can
// hit (Belady's MIN, with bypass), next to which the hit-ratio tables read: a
// figure above it was scored holding more entries than the capacity. Like
// TestHitRatio, it replays the full traces only with TIERKIT_LONG=1, and else
// the same prefix (replayKeys).
func TestBeladyBound(t *testing.T) {
	var b strings.Builder
	fmt.Fprintf(&b, "| workload | requests | Belady MIN (bypass) %% |\n|---|---|---|\n")
	for _, w := range workloads {
		keys := replayKeys(t, w)
		opt := 100 * float64(beladyHits(keys, w.capacity)) / float64(len(keys))
		require.Greater(t, opt, 0.0, w.name)
		fmt.Fprintf(&b, "| %s | %d | %.2f |\n", w.name, len(keys), opt)
	}
	t.Log("\n" + b.String())
}
