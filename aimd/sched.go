package aimd

import (
	"errors"
	"fmt"
	"math"
	"runtime/metrics"
	"sync"
	"time"
)

// SchedLatency is the Go scheduler's latency: a quantile of the time
// goroutines spent runnable before they ran, over the period since the
// previous Sample, in seconds (runtime/metrics /sched/latencies:seconds;
// histogram resolution, a bucket's upper bound). A process starved of CPU (by
// other processes, the hypervisor, a CPU quota) reads its own CPU as low while
// its goroutines queue for a thread: a CPU signal then opens the limit to Max
// and the work in flight piles up. This signal sees it; combine it with a CPU
// signal with [MaxOf]. Sample returns NaN when no goroutine was scheduled in the
// period. The zero value uses the 99th percentile; it is safe for concurrent
// use.
type SchedLatency struct {
	// Quantile in (0, 1]; zero means 0.99.
	Quantile float64

	mu   sync.Mutex // protects s and last
	s    []metrics.Sample
	last []uint64
}

const schedMetric = "/sched/latencies:seconds"

// errNoSchedMetric is SchedLatency's error when the runtime does not publish
// its metric: no Sample will ever read, so it says errors.ErrUnsupported.
var errNoSchedMetric = fmt.Errorf("aimd: runtime/metrics has no %s: %w", schedMetric, errors.ErrUnsupported)

// Sample returns the latency quantile since the previous call (NaN on the
// first). If the runtime does not publish the scheduler latencies, the error
// wraps errors.ErrUnsupported: use another signal.
func (l *SchedLatency) Sample(time.Time) (float64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.s == nil {
		l.s = []metrics.Sample{{Name: schedMetric}}
	}
	metrics.Read(l.s)
	if l.s[0].Value.Kind() != metrics.KindFloat64Histogram {
		return math.NaN(), errNoSchedMetric
	}
	h := l.s[0].Value.Float64Histogram()
	prev := l.last
	l.last = append(l.last[:0:0], h.Counts...)
	if prev == nil {
		return math.NaN(), nil
	}
	q := l.Quantile
	if !(q > 0 && q <= 1) {
		q = 0.99
	}
	return quantile(prev, h.Counts, h.Buckets, q), nil
}

// quantile returns the q-quantile of the histogram counts added between a and b
// (the upper bound of the bucket it falls in; the lower bound for the last,
// unbounded bucket), or NaN if nothing was added.
func quantile(a, b []uint64, buckets []float64, q float64) float64 {
	if len(a) != len(b) || len(buckets) != len(b)+1 {
		return math.NaN()
	}
	var total uint64
	for i := range b {
		total += b[i] - a[i]
	}
	if total == 0 {
		return math.NaN()
	}
	// The rank is the smallest n with n/total >= q, compared as a quotient:
	// the product rounds above a whole number (0.07 x 100 is
	// 7.000000000000001), whose ceiling is one too high.
	want := uint64(math.Ceil(q * float64(total)))
	if want > 1 && float64(want-1)/float64(total) >= q {
		want--
	}
	var c uint64
	for i := range b {
		if c += b[i] - a[i]; c >= want {
			if hi := buckets[i+1]; !math.IsInf(hi, 1) {
				return hi
			}
			return max(buckets[i], 0)
		}
	}
	return math.NaN()
}

// Relative is a signal with its own target, a component of [MaxOf].
type Relative struct {
	Signal Signal
	Target float64 // positive
}

// MaxOf combines signals, each relative to its own target: Sample returns the
// largest Load/Target among them, so a Limiter on it, with [Config.Target] 1,
// holds every signal at or below its target and backs off when any is above.
// For example MaxOf{{&ProcessCPU{}, 0.9}, {&SchedLatency{}, 0.02}}: 90% CPU,
// unless goroutines wait more than 20 ms for a thread. Components that return
// NaN are left out (NaN if all do); the first error is returned with the
// maximum of the others, which is a lower bound of the load: a [Limiter]
// cuts on it when it is above the target (whatever the failed component
// reads, the load is above), and otherwise keeps its limit, as for any
// signal error. Every component is sampled at every call, so that rate
// signals keep their periods. A component whose Signal is nil (or a nil
// value of this package's signal types, such as a nil SignalFunc or a nil
// *ProcessCPU) is an error wrapping [ErrInvalidConfig] (a component set to
// nil after New, in the slice the Limiter shares), and [New] refuses such a MaxOf,
// also through a pointer (a *MaxOf is a Signal too). So does it one with a component whose Target is not a positive finite number, which
// Sample would leave out (or read as 0, for an infinite Target): the
// signal would never count. It refuses a MaxOf without components too, or
// one holding such a MaxOf: it reads NaN ("no reading") at every call, and
// the limit would never move; and one that holds itself (at any depth),
// whose Sample recurses until the stack overflows.
type MaxOf []Relative

// Sample returns the largest Load/Target of the components.
func (m MaxOf) Sample(now time.Time) (float64, error) {
	out := math.NaN()
	var first error
	for i, r := range m {
		if absent(r.Signal) { // New refuses it; sampled directly, no panic
			if first == nil {
				first = fmt.Errorf("aimd: MaxOf component %d has no Signal: %w", i, ErrInvalidConfig)
			}
			continue
		}
		v, err := r.Signal.Sample(now)
		if err != nil {
			if first == nil {
				first = err
			}
			if !isPartial(err) { // a nested MaxOf's partial maximum counts
				continue
			}
		}
		if math.IsNaN(v) || !(r.Target > 0) {
			continue
		}
		if v /= r.Target; math.IsNaN(out) || v > out {
			out = v
		}
	}
	if first != nil && !math.IsNaN(out) {
		first = &partialError{first}
	}
	return out, first
}

// partialError is MaxOf's error when some components failed and others
// read: the value returned with it is a lower bound of the load.
type partialError struct{ err error }

func (e *partialError) Error() string { return e.err.Error() }
func (e *partialError) Unwrap() error { return e.err }

// isPartial reports whether err came with a lower bound of the load (a
// MaxOf's, also wrapped by a Signal around it).
func isPartial(err error) bool {
	var p *partialError
	return errors.As(err, &p)
}

// absent reports whether s is no signal: nil, or a nil value of one of the
// package's own signal types, whose Sample panics.
func absent(s Signal) bool { return s == nil || nilSignal(s) != "" }

// nilSignal returns the name of s's type if s is a nil value of one of the
// package's own signal types (a nil SignalFunc, or a nil pointer whose Sample
// locks its mutex), whose Sample panics; "" otherwise, nil itself included.
// A Signal of another type that is a nil pointer is the caller's to refuse:
// its Sample may well work.
func nilSignal(s Signal) string {
	switch v := s.(type) {
	case SignalFunc:
		return ifNil(v == nil, "SignalFunc")
	case *MaxOf:
		return ifNil(v == nil, "*MaxOf")
	case *ProcessCPU:
		return ifNil(v == nil, "*ProcessCPU")
	case *CgroupCPU:
		return ifNil(v == nil, "*CgroupCPU")
	case *Latency:
		return ifNil(v == nil, "*Latency")
	case *SchedLatency:
		return ifNil(v == nil, "*SchedLatency")
	}
	return ""
}

// ifNil returns name if isNil, else "".
func ifNil(isNil bool, name string) string {
	if isNil {
		return name
	}
	return ""
}

// asMaxOf returns the MaxOf s is, held as a value or through a non-nil
// pointer (whose method set has Sample too), and whether it is one.
func asMaxOf(s Signal) (MaxOf, bool) {
	switch m := s.(type) {
	case MaxOf:
		return m, true
	case *MaxOf:
		if m != nil {
			return *m, true
		}
	}
	return nil, false
}

// cyclic reports whether m holds itself: a MaxOf within it, at any depth
// (also through a pointer), is a slice that is already on the way to it,
// the same array from the same element with the same length. Sample would
// recurse without end. A shorter slice of the same array is another MaxOf.
func (m MaxOf) cyclic() bool { return m.cycles(nil) }

func (m MaxOf) cycles(path []MaxOf) bool {
	if len(m) == 0 {
		return false
	}
	for _, p := range path {
		if &p[0] == &m[0] && len(p) == len(m) {
			return true
		}
	}
	path = append(path, m)
	for _, r := range m {
		if sub, ok := asMaxOf(r.Signal); ok && sub.cycles(path) {
			return true
		}
	}
	return false
}

// lacksSignal reports whether a component of m, or of a MaxOf within it, is
// absent.
func (m MaxOf) lacksSignal() bool {
	for _, r := range m {
		if sub, ok := asMaxOf(r.Signal); ok && sub.lacksSignal() || absent(r.Signal) {
			return true
		}
	}
	return false
}

// lacksComponent reports whether m, or a MaxOf within it, has no
// components: it reads NaN at every call.
func (m MaxOf) lacksComponent() bool {
	if len(m) == 0 {
		return true
	}
	for _, r := range m {
		if sub, ok := asMaxOf(r.Signal); ok && sub.lacksComponent() {
			return true
		}
	}
	return false
}

// badTarget reports whether a component of m, or of a MaxOf within it, has a
// Target that is not a positive finite number.
func (m MaxOf) badTarget() bool {
	for _, r := range m {
		if sub, ok := asMaxOf(r.Signal); ok && sub.badTarget() || !(r.Target > 0) || math.IsInf(r.Target, 1) {
			return true
		}
	}
	return false
}
