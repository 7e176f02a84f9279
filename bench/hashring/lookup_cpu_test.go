package hashringbench

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/bench/internal/cputime"
)

// burnRouter is a router whose lookup burns CPU off the calling thread, as
// the GC marks the garbage of a peer whose lookup allocates (serialx 4
// allocations per lookup, stathat and groupcache 1) on threads of its own.
type burnRouter struct{ burn func() }

func (r burnRouter) lookup(string) string { r.burn(); return "" }
func (burnRouter) remove(string) router   { return nil }
func (burnRouter) add(member) router      { return nil }
func (burnRouter) reweight(member) router { return nil }

// TestLookupLoopCountsCPUOffItsThread: BenchmarkLookup's cpu-ns/op counts
// the CPU time a lookup costs on other threads. Each op here burns 1 ms of
// CPU on another goroutine: the calling thread's clock saw almost none of it,
// so the peers that allocate on every lookup read cheaper than they are.
func TestLookupLoopCountsCPUOffItsThread(t *testing.T) {
	if _, ok := cputime.Process(); !ok {
		t.Skip("no CPU clock on this platform")
	}
	const burn = 1_000_000 // ns per op
	got, err := cputime.OffThreadPerOp(burn, func(b *testing.B, burn func()) {
		lookupLoop(b, burnRouter{burn})
	})
	require.NoError(t, err)
	require.GreaterOrEqual(t, got, 0.9*burn, "CPU per op, of %d ns burnt off the calling thread", burn)
}
