package hashring

import (
	"math"
	"sync"
	"sync/atomic"

	"github.com/cespare/xxhash/v2"
)

// LoadReporter reports in-flight load for the bounded-load lookups. [*Loads]
// implements it; a caller with its own counters (a connection pool, a metrics
// registry) can adapt them. Both methods must be safe for concurrent use.
type LoadReporter interface {
	// Load returns the requests in flight on node id (0 for an unknown id).
	Load(id string) int64
	// Total returns the requests in flight on all nodes. The bounds scale with
	// it: count only the ring's members in it for a bound on their average.
	Total() int64
}

// LookupBounded returns the owner of key unless that node is at its load bound, in
// which case it returns the next node of the key's probe sequence (the one
// [Ring.LookupN] draws its replicas from) that is below its bound: consistent
// hashing with bounded loads (Mirrokni, Thorup, Zadimoghaddam, SODA 2018),
// weighted. It follows the sequence for 4 x min(owners, 16) probes, fewer than
// LookupN takes; when those all land on nodes at their bound (a full node much
// heavier than the others), it takes the first node below its bound in a scan
// of the members from a key-dependent start, which is not LookupN's order and
// depends on the number of members. The bound of node i is
//
//	ceil(c * (Total+1) * Weight_i / TotalWeight)
//
// so with equal weights no node exceeds ceil(c x average) once the caller counts the
// request it routes (the "+1"). The bound is computed in floating point: exactly
// for integer weights and a c such as 1, 1.25, 1.5 or 2 (while c x (Total+1) x
// Weight_i stays below 2^53); with fractional weights or a c such as 1.1 it is
// within one of the exact value (taken on the float64 values of c and the
// weights), and can come out one higher or one lower: with c = 1.1, three equal
// weights and Total+1 = 30 it is 11, where exact arithmetic on float64(1.1), a
// little above 1.1, gives 12. Within one holds for bounds below 2^51; past that
// the rounding of float64 itself can exceed one. c must be finite and >= 1 (1.25
// is the paper's usual choice); otherwise LookupBounded returns
// [ErrBadLoadFactor]. On a nil or empty ring it returns [ErrEmpty]. It never panics: if concurrent callers filled every node
// between reads, it returns the node with the lowest load relative to its bound. Lookups and the caller's
// Acquire are not atomic together, so under concurrency a node can pass its bound by
// at most the number of callers racing for it. A nil lr counts as no load at all,
// and a Total below 0 as 0.
//
// Total is whatever lr reports, and a [Loads] counts every node it was given,
// members or not: requests still in flight on a node that left the ring (or on
// the nodes of another ring sharing the Loads) raise every member's bound, so
// while they drain, the bound is c x (the members' load + the departed load)
// shared among the members, not ceil(c x average), and a hot key can pile up on
// its owner. To keep the bound during a drain, pass a [LoadReporter] whose Total
// counts the ring's members only.
func (r *Ring) LookupBounded(key string, c float64, lr LoadReporter) (string, error) {
	return r.LookupBoundedHash(xxhash.Sum64String(key), c, lr)
}

// LookupBoundedHash is LookupBounded for a precomputed hash.
func (r *Ring) LookupBoundedHash(h uint64, c float64, lr LoadReporter) (string, error) {
	if !(c >= 1) || math.IsInf(c, 0) {
		return "", ErrBadLoadFactor
	}
	if r == nil || len(r.nodes) == 0 {
		return "", ErrEmpty
	}
	if lr == nil { // nothing is loaded
		return r.LookupHash(h)
	}
	// A reporter whose total lags its per-node counts can read below 0 for a
	// moment: a bound of 0 fits no node, and every key went to the first member.
	// The +1 is added in floating point: in int64 a total of the largest int64
	// wrapped, every bound came out negative, and every key went to the most
	// loaded node.
	scale := c * (float64(max(lr.Total(), 0)) + 1)
	fits := func(i int) (bool, float64) {
		// scale*w/W is exact for integer weights and c = 1, 1.25, 1.5, 2...,
		// where scale*(w/W) can land just above an integer and let the node take
		// one more than its bound. Where scale*w leaves the normal range (huge or
		// tiny weights) it is the share first: c*(Total+1)/TotalWeight overflows
		// for tiny weights, which made every bound infinite.
		w := r.nodes[i].Weight
		x := scale * w
		if x >= 0x1p-1022 && x <= math.MaxFloat64 {
			x /= r.total
		} else {
			x = scale * (w / r.total)
		}
		// The bound is the ceiling of a positive number, so at least 1. x is
		// 0 where the share underflows (a weight 1e-330 of the total), and a
		// bound of 0 made such a node never fit, even idle.
		bound := math.Ceil(x)
		if !(bound >= 1) {
			bound = 1
		}
		load := float64(lr.Load(r.nodes[i].ID))
		return load+1 <= bound, load / bound
	}
	// The key's replica order first: the owner, then weighted probes.
	for k := uint64(0); k < uint64(4*min(r.owners, 16)); k++ {
		i := int(r.slots[probe(h, k)>>r.shift])
		if ok, _ := fits(i); ok {
			return r.nodes[i].ID, nil
		}
	}
	// Every probe was full: scan all nodes from a key-dependent start.
	best, bestFill := 0, math.Inf(1)
	n := len(r.nodes)
	for j := range n {
		i := (int(h%uint64(n)) + j) % n
		ok, fill := fits(i)
		if ok {
			return r.nodes[i].ID, nil
		}
		if fill < bestFill {
			best, bestFill = i, fill
		}
	}
	return r.nodes[best].ID, nil
}

// Loads counts requests in flight per node, for [Ring.LookupBounded]. The zero value
// is ready to use; it is safe for concurrent use and must not be copied after first
// use. Acquire and Release of a node already counted are lock-free; a node's first
// Acquire and a Forget insert into or delete from a sync.Map, which takes a short
// lock inside the map; no operation costs more with more nodes counted.
// Counters of nodes that left a ring stay (so late Releases balance); call
// [Loads.Forget] to drop an idle one.
type Loads struct {
	// counters maps node ID to its in-flight count, an *atomic.Int64. A sync.Map
	// (a hash trie) rather than a map copied on write: a copy per new node made
	// counting n nodes O(n²), 14 s for 10,000.
	counters sync.Map
	nodes    atomic.Int64 // entries in counters
	total    atomic.Int64
	acquires atomic.Uint64
	releases atomic.Uint64
}

var _ LoadReporter = (*Loads)(nil)

// Acquire counts one more request in flight on node id.
func (l *Loads) Acquire(id string) {
	// The total and the call count go up before the node's counter: a Release
	// that finds the node counted then always has an increment to undo, so
	// neither Total nor Stats ever reads below 0 (or Releases above Acquires).
	l.acquires.Add(1)
	l.total.Add(1)
	for {
		c := l.counter(id)
		v := c.Load()
		if v == retired {
			// Forget is dropping this counter: delete it for that Forget
			// rather than wait for it (a Forget descheduled between its two
			// steps would hold every Acquire of id), then count on a fresh one.
			l.counters.CompareAndDelete(id, c)
			continue
		}
		if c.CompareAndSwap(v, v+1) {
			break
		}
	}
	if testHookAcquired != nil {
		testHookAcquired(id)
	}
}

// testHookAcquired, if set, runs in Acquire once the node's counter has gone up:
// tests set it to release the request there, before Acquire returns.
var testHookAcquired func(id string)

// Release counts the end of a request on node id that [Loads.Acquire] counted.
// Releasing more than was acquired is a caller bug; the count is then clamped at 0.
func (l *Loads) Release(id string) {
	v, ok := l.counters.Load(id)
	if !ok {
		return // never acquired (or forgotten): nothing in flight to release
	}
	c := v.(*atomic.Int64)
	for {
		v := c.Load()
		if v <= 0 {
			return
		}
		if c.CompareAndSwap(v, v-1) {
			break
		}
	}
	l.total.Add(-1)
	l.releases.Add(1)
}

// Load returns the requests in flight on node id. A nil *Loads counts none, as a
// nil [LoadReporter] does.
func (l *Loads) Load(id string) int64 {
	if l == nil {
		return 0
	}
	if c, ok := l.counters.Load(id); ok {
		return max(c.(*atomic.Int64).Load(), 0)
	}
	return 0
}

// Total returns the requests in flight on all nodes l counts, including nodes that
// have left the ring and not yet drained.
func (l *Loads) Total() int64 {
	if l == nil {
		return 0
	}
	return l.total.Load()
}

// Forget drops the counter of node id if nothing is in flight on it, and reports
// whether it did. Use it for nodes that have left every ring. A lookup still
// running on a ring published before the node left can Acquire it after a
// Forget: that makes a new counter, which drains to 0 but stays stored (and
// counted in [LoadStats].Nodes) until a later Forget, so a caller whose node IDs
// change over time should Forget departed nodes again after its lookups on
// older rings have finished (for example, on the next ring change).
func (l *Loads) Forget(id string) bool {
	c, ok := l.counters.Load(id)
	if !ok || !c.(*atomic.Int64).CompareAndSwap(0, retired) {
		return false
	}
	if testHookRetired != nil {
		testHookRetired(id)
	}
	// The Forget that retired c deletes it, unless an Acquire that found c
	// retired did first; either way no other counter for id is stored until
	// c is gone, and only this Forget uncounts it.
	l.counters.CompareAndDelete(id, c)
	l.nodes.Add(-1)
	return true
}

// retired marks a counter Forget dropped; Acquire retries on a fresh one.
const retired = math.MinInt64

// testHookRetired, if set, runs in Forget between retiring the counter and
// deleting it: tests set it to run an Acquire there.
var testHookRetired func(id string)

// LoadStats is a snapshot of a [Loads].
type LoadStats struct {
	InFlight int64  // requests in flight now (gauge)
	Acquires uint64 // Acquire calls (monotonic)
	Releases uint64 // Release calls that decremented (monotonic)
	Nodes    int    // node IDs with a counter (gauge)
}

// Stats returns a snapshot of the counters.
func (l *Loads) Stats() LoadStats {
	// Releases first: an Acquire counted before its Release, so reading in this
	// order never shows more Releases than Acquires.
	releases := l.releases.Load()
	return LoadStats{
		InFlight: l.total.Load(),
		Acquires: l.acquires.Load(),
		Releases: releases,
		// A Forget can delete a counter before its creator has counted it.
		Nodes: int(max(l.nodes.Load(), 0)),
	}
}

// counter returns the counter of id, creating it on first use.
func (l *Loads) counter(id string) *atomic.Int64 {
	if c, ok := l.counters.Load(id); ok {
		return c.(*atomic.Int64)
	}
	c, loaded := l.counters.LoadOrStore(id, new(atomic.Int64))
	if !loaded {
		l.nodes.Add(1)
	}
	return c.(*atomic.Int64)
}
