package hashring

import (
	"math"
	"runtime"
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
	// Total returns the requests in flight on all nodes.
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
// for integer weights and a c such as 1, 1.25, 1.5 or 2; with fractional weights
// or a c such as 1.1 it can come out one higher where the exact value is an
// integer. c must be finite and >= 1 (1.25 is the paper's usual choice); otherwise LookupBounded returns [ErrBadLoadFactor]. It never
// panics: if concurrent callers filled every node between reads, it returns the
// node with the lowest load relative to its bound. Lookups and the caller's
// Acquire are not atomic together, so under concurrency a node can pass its bound by
// at most the number of callers racing for it. A nil lr counts as no load at all,
// and a Total below 0 as 0.
func (r *Ring) LookupBounded(key string, c float64, lr LoadReporter) (string, error) {
	return r.LookupBoundedHash(xxhash.Sum64String(key), c, lr)
}

// LookupBoundedHash is LookupBounded for a precomputed hash.
func (r *Ring) LookupBoundedHash(h uint64, c float64, lr LoadReporter) (string, error) {
	if !(c >= 1) || math.IsInf(c, 0) {
		return "", ErrBadLoadFactor
	}
	if len(r.nodes) == 0 {
		return "", ErrEmpty
	}
	if lr == nil { // nothing is loaded
		return r.LookupHash(h)
	}
	// A reporter whose total lags its per-node counts can read below 0 for a
	// moment: a bound of 0 fits no node, and every key went to the first member.
	scale := c * float64(max(lr.Total(), 0)+1)
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
		bound := math.Ceil(x)
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
// use. Counting is lock-free except the first time a node ID is seen. Counters of
// nodes that left a ring stay (so late Releases balance); call [Loads.Forget] to drop
// an idle one.
type Loads struct {
	mu sync.Mutex // serializes writers of counters (readers never lock)
	// counters maps node ID to its in-flight count; copied on write.
	counters atomic.Pointer[map[string]*atomic.Int64]
	total    atomic.Int64
	acquires atomic.Uint64
	releases atomic.Uint64
}

var _ LoadReporter = (*Loads)(nil)

// Acquire counts one more request in flight on node id.
func (l *Loads) Acquire(id string) {
	for {
		c := l.counter(id)
		v := c.Load()
		if v == retired {
			// Forget is dropping this counter: its new map, without it, is
			// stored before Forget releases mu. Yield until it is.
			runtime.Gosched()
			continue
		}
		if c.CompareAndSwap(v, v+1) {
			break
		}
	}
	l.total.Add(1)
	l.acquires.Add(1)
}

// Release counts the end of a request on node id that [Loads.Acquire] counted.
// Releasing more than was acquired is a caller bug; the count is then clamped at 0.
func (l *Loads) Release(id string) {
	m := l.counters.Load()
	if m == nil || (*m)[id] == nil {
		return // never acquired (or forgotten): nothing in flight to release
	}
	c := (*m)[id]
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

// Load returns the requests in flight on node id.
func (l *Loads) Load(id string) int64 {
	if m := l.counters.Load(); m != nil {
		if c := (*m)[id]; c != nil {
			return max(c.Load(), 0)
		}
	}
	return 0
}

// Total returns the requests in flight on all nodes.
func (l *Loads) Total() int64 { return l.total.Load() }

// Forget drops the counter of node id if nothing is in flight on it, and reports
// whether it did. Use it for nodes that have left every ring.
func (l *Loads) Forget(id string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	old := l.counters.Load()
	if old == nil || (*old)[id] == nil || !(*old)[id].CompareAndSwap(0, retired) {
		return false
	}
	next := make(map[string]*atomic.Int64, len(*old))
	for k, v := range *old {
		if k != id {
			next[k] = v
		}
	}
	l.counters.Store(&next)
	return true
}

// retired marks a counter Forget dropped; Acquire retries on a fresh one.
const retired = math.MinInt64

// LoadStats is a snapshot of a [Loads].
type LoadStats struct {
	InFlight int64  // requests in flight now (gauge)
	Acquires uint64 // Acquire calls (monotonic)
	Releases uint64 // Release calls that decremented (monotonic)
	Nodes    int    // node IDs with a counter (gauge)
}

// Stats returns a snapshot of the counters.
func (l *Loads) Stats() LoadStats {
	s := LoadStats{InFlight: l.total.Load(), Acquires: l.acquires.Load(), Releases: l.releases.Load()}
	if m := l.counters.Load(); m != nil {
		s.Nodes = len(*m)
	}
	return s
}

// counter returns the counter of id, creating it on first use.
func (l *Loads) counter(id string) *atomic.Int64 {
	if m := l.counters.Load(); m != nil {
		if c := (*m)[id]; c != nil {
			return c
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	old := l.counters.Load()
	if old != nil && (*old)[id] != nil { // another writer added it meanwhile
		return (*old)[id]
	}
	next := make(map[string]*atomic.Int64)
	if old != nil {
		for k, v := range *old {
			next[k] = v
		}
	}
	c := new(atomic.Int64)
	next[id] = c
	l.counters.Store(&next)
	return c
}
