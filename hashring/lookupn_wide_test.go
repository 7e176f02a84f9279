package hashring

import (
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/cespare/xxhash/v2"
)

// lookupNLinear is the draw of AppendLookupNHash with the nodes drawn searched for
// in dst: the reference order the bitset path must reproduce.
func lookupNLinear(r *Ring, h uint64, n int) []string {
	var dst []string
	want := min(n, r.owners)
	for k := uint64(0); k < uint64(32*want) && len(dst) < want; k++ {
		if id := r.nodes[r.slots[probe(h, k)>>r.shift]].ID; !slices.Contains(dst, id) {
			dst = append(dst, id)
		}
	}
	for len(dst) < want {
		best, bestScore := -1, uint64(0)
		for j, nd := range r.nodes {
			if r.counts[j] == 0 || slices.Contains(dst, nd.ID) {
				continue
			}
			if sc := probe(h^xxhash.Sum64String(nd.ID), 1); best < 0 || sc > bestScore {
				best, bestScore = j, sc
			}
		}
		dst = append(dst, r.nodes[best].ID)
	}
	return dst
}

// TestLookupNManyReplicasIsLinear: LookupN searched the replicas drawn so far for
// every probe, up to 32 probes per replica, so a draw of n replicas cost O(n²)
// string comparisons: a full preference list of 5,000 nodes took a second, of
// 10,000 over eight (and MaxNodes minutes). It is linear now; 1 s is more than
// 20 times what the draw of 10,000 takes under -race (25-40 ms on a
// busy 2-core VM). The draw runs on the test's goroutine, so a slow one fails
// after it returns and leaves nothing running.
func TestLookupNManyReplicasIsLinear(t *testing.T) {
	nodes := make([]Node, 10_000)
	for i := range nodes {
		nodes[i] = Node{ID: fmt.Sprintf("host-%05d", i), Weight: float64(26 + i%101)}
	}
	r, err := New(Config{}, nodes)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	got, _ := r.LookupN("user:42", len(nodes))
	if took := time.Since(start); took > time.Second {
		t.Fatalf("LookupN of 10,000 replicas took %v, over a second: quadratic in the replica count", took)
	}
	if len(got) != len(nodes) {
		t.Fatalf("%d replicas, want %d", len(got), len(nodes))
	}
	owner, _ := r.Lookup("user:42")
	seen := map[string]bool{}
	for _, id := range got {
		if seen[id] {
			t.Fatalf("%s drawn twice", id)
		}
		seen[id] = true
	}
	if got[0] != owner {
		t.Fatalf("first replica %s, owner %s", got[0], owner)
	}
}

// TestLookupNWideSameOrder: for more than 16 replicas (the bitset path) the draw
// is exactly the one the search of dst made, in the same order, also where the
// probes miss tiny nodes and the rendezvous fallback picks them, and it appends
// after what dst held.
func TestLookupNWideSameOrder(t *testing.T) {
	var cores []Node
	for i := range 300 {
		cores = append(cores, Node{ID: fmt.Sprint("n", i), Weight: float64(26 + i%101)})
	}
	// Two giants and 30 nodes under a slot each: 28 of them own one slot, and
	// 32 probes per replica miss one of those for about half the keys.
	giants := []Node{{ID: "A", Weight: 1000}, {ID: "B", Weight: 1000}}
	for i := range 30 {
		giants = append(giants, Node{ID: fmt.Sprint("s", i), Weight: 8})
	}
	for _, tc := range []struct {
		slots int
		nodes []Node
	}{{1 << 12, cores}, {1 << 8, giants}} {
		r, err := New(Config{Slots: tc.slots}, tc.nodes)
		if err != nil {
			t.Fatal(err)
		}
		fallbacks := 0
		for k := range 100 {
			h := xxhash.Sum64String(fmt.Sprint("key-", k))
			for _, n := range []int{17, 28, 50, len(tc.nodes)} {
				want := lookupNLinear(r, h, n)
				got := r.AppendLookupNHash([]string{"prefix"}, h, n)
				if got[0] != "prefix" || !slices.Equal(got[1:], want) {
					t.Fatalf("n=%d key-%d: got %v, want %v", n, k, got[1:], want)
				}
			}
			drawn := map[uint16]bool{}
			for p := uint64(0); p < uint64(32*r.owners); p++ {
				drawn[r.slots[probe(h, p)>>r.shift]] = true
			}
			fallbacks += btoi(len(drawn) < r.owners)
		}
		if tc.slots == 1<<8 && fallbacks < 10 {
			t.Fatalf("only %d keys of 100 reached the fallback: the case is not tested", fallbacks)
		}
	}
}

// TestLookupNWideFallbackIsLinear: the draw of many replicas on a ring where one
// node owns most slots leaves thousands of light nodes to the rendezvous fallback,
// which scanned every member, hashing its ID, for each of them: O(n²): 4 s for
// a full preference list of MaxNodes - 1 light nodes beside a heavy one. The
// fallback scores the members once now: eight times the light nodes on eight
// times the slots take 11 to 23 times as long (the larger ring does not stay in
// the caches, and the sort), where a scan per replica took 64 to 90 times. The
// test compares the draw with itself, not with a fixed time that a loaded
// machine or -race exceeds; it counts the CPU time of the draw's thread, not
// the time the machine ran other work, and takes the least of a few
// alternating runs. (TestLookupNWideSameOrder checks the order.)
func TestLookupNWideFallbackIsLinear(t *testing.T) {
	draw := func(slots, light int) func() time.Duration {
		nodes := []Node{{ID: "heavy", Weight: float64(slots - light)}}
		for i := range light {
			nodes = append(nodes, Node{ID: fmt.Sprintf("light-%05d", i), Weight: 1}) // one slot each
		}
		r, err := New(Config{Slots: slots}, nodes)
		if err != nil {
			t.Fatal(err)
		}
		h := xxhash.Sum64String("user:42")
		return func() time.Duration {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			start := threadCPU()
			got := r.AppendLookupNHash(nil, h, len(nodes))
			elapsed := threadCPU() - start
			if len(got) != len(nodes) || len(slices.Compact(slices.Sorted(slices.Values(got)))) != len(nodes) {
				t.Fatalf("%d replicas, want %d distinct", len(got), len(nodes))
			}
			return elapsed
		}
	}
	// An eighth of the light nodes on an eighth of the slots: the probes miss
	// the same share of them.
	const slots, light = 1 << 20, MaxNodes - 1
	drawFew, drawAll := draw(slots/8, light/8), draw(slots, light)
	few, all := time.Duration(1<<62), time.Duration(1<<62)
	for range 3 {
		few = min(few, drawFew())
		all = min(all, drawAll())
	}
	if all > 40*few {
		t.Fatalf("LookupN of %d replicas, most drawn by the fallback, took %v, of %d %v: quadratic in the members", light+1, all, light/8+1, few)
	}
}
