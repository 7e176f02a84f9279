package hashringbench

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/tierkit/tierkit/bench/internal/cputime"
)

var sink string

// parallelSink takes each RunParallel goroutine's last lookup after its loop, as
// sink does for the one-goroutine benchmarks: a result nothing reads is work a
// compiler may drop. Atomic, because the goroutines store concurrently.
var parallelSink atomic.Pointer[string]

// benchKeys are the lookup keys: 1<<14 distinct strings, cycled, so every
// implementation hashes the same strings.
var benchKeys = func() []string {
	keys := make([]string, 1<<14)
	for i := range keys {
		keys[i] = fmt.Sprintf("user:%d:profile", i)
	}
	return keys
}()

// BenchmarkLookup is one goroutine routing keys: hashing the string key included.
func BenchmarkLookup(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		ms := equalFleet(n)
		for _, im := range impls {
			r := im.build(ms)
			b.Run(fmt.Sprintf("impl=%s/n=%d", im.name, n), func(b *testing.B) {
				lookupLoop(b, r)
			})
		}
	}
}

// lookupLoop times r's lookups of the cycled benchKeys in b's loop, with
// their allocations and their CPU time per op: the process's, as cputime's
// doc asks for ops that allocate. serialx allocates 4 objects per lookup,
// stathat and groupcache 1, and the GC marks that garbage on threads of its
// own; the calling thread's clock left it out, so their cpu-ns/op read below
// their own wall time per op and below what they cost.
func lookupLoop(b *testing.B, r router) {
	b.ReportAllocs()
	done := cputime.ReportProcess(b)
	i := 0
	for b.Loop() {
		sink = r.lookup(benchKeys[i&(len(benchKeys)-1)])
		i++
	}
	done()
}

// BenchmarkLookupParallel is GOMAXPROCS goroutines sharing one router: with 2 cores,
// ns/op half of BenchmarkLookup's means perfect scaling, and cpu-ns/op equal to
// BenchmarkLookup's means the goroutines do not slow each other down (no lock, no
// shared cache line written).
func BenchmarkLookupParallel(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		ms := equalFleet(n)
		for _, im := range impls {
			r := im.build(ms)
			b.Run(fmt.Sprintf("impl=%s/n=%d", im.name, n), func(b *testing.B) {
				b.ReportAllocs()
				done := cputime.ReportProcess(b)
				b.RunParallel(func(pb *testing.PB) {
					i, id := 0, ""
					for pb.Next() {
						id = r.lookup(benchKeys[i&(len(benchKeys)-1)])
						i++
					}
					parallelSink.Store(&id)
				})
				done()
			})
		}
	}
}

// BenchmarkBuild builds a router for n nodes of 26-126 "cores" from scratch
// (unweighted peers get the same IDs without weights).
func BenchmarkBuild(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		ms := coreFleet(n)
		for _, im := range impls {
			b.Run(fmt.Sprintf("impl=%s/n=%d", im.name, n), func(b *testing.B) {
				rebuildLoop(b, func() { _ = im.build(ms) })
			})
		}
	}
}

// BenchmarkLeave is the cost of deriving the ring after one node leaves, for the
// implementations with an incremental removal (tierkit derives a new immutable ring;
// maglev rebuilds its table with the node marked dead).
func BenchmarkLeave(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		ms := coreFleet(n)
		for _, im := range impls {
			if im.name != "tierkit" && im.name != "go-maglev" && im.name != "serialx" {
				continue
			}
			r := im.build(ms)
			b.Run(fmt.Sprintf("impl=%s/n=%d", im.name, n), func(b *testing.B) {
				rebuildLoop(b, func() { _ = r.remove(ms[n/2].id) })
			})
		}
	}
}

// rebuildLoop times op, a build or a leave, in b's loop, with its allocations
// and its CPU time per op. Unlike a lookup, op allocates a table or more each
// time (a build of tierkit's ring 512 KiB), and the GC's marking and the
// returning of freed pages run on goroutines and threads of their own: the
// CPU time counted is the process's, as cputime's doc asks in that case, not
// the calling thread's, which leaves them out.
func rebuildLoop(b *testing.B, op func()) {
	b.ReportAllocs()
	done := cputime.ReportProcess(b)
	for b.Loop() {
		op()
	}
	done()
}
