package hashring_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/tierkit/tierkit/hashring"
)

// TestLoadsFirstAcquireIsNotLinear: counting a node for the first time, and
// forgetting one, cost about the same however many nodes a Loads holds. Both
// copied the whole map of counters under the lock, so warming up a Loads over n
// nodes cost O(n²): 14 s of CPU for 10,000 nodes, minutes at MaxNodes, with
// every other first Acquire waiting on the lock meanwhile. The bytes allocated
// per node show it without timing: they grew with the number of nodes.
func TestLoadsFirstAcquireIsNotLinear(t *testing.T) {
	const n = 1024
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprint("10.0.", i/256, ".", i%256, ":6379")
	}
	var l hashring.Loads
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for _, id := range ids {
		l.Acquire(id)
	}
	for _, id := range ids {
		l.Release(id)
		if !l.Forget(id) {
			t.Fatalf("Forget(%q) with nothing in flight reported false", id)
		}
	}
	runtime.ReadMemStats(&after)
	if st := l.Stats(); st.Nodes != 0 || st.InFlight != 0 {
		t.Fatalf("Stats %+v after every node was released and forgotten", st)
	}
	if perNode := (after.TotalAlloc - before.TotalAlloc) / n; perNode > 2<<10 {
		t.Fatalf("%d bytes allocated per node to count and forget %d nodes: the cost grows with the nodes held", perNode, n)
	}
}
