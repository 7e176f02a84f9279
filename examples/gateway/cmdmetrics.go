package main

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tierkit/tierkit/internal/mix"
)

// cmdCollector serves gateway_requests_total and gateway_request_seconds:
// per tenant and command, the commands by outcome and their latency
// histogram. It replaces a CounterVec and a HistogramVec whose series every
// goroutine observing a command wrote to: each observation was several atomic
// adds on words shared by all of them, and under pipelined SETs a CPU profile
// showed those cache lines moving between the cores. Here a series that two
// goroutines write at once is striped: an observation writes only the stripe
// of its goroutine (stripeHint), so goroutines running at once mostly write
// different cache lines, and a scrape sums the stripes into const metrics.
// Memory follows contention: a series starts with one stripe of its own
// (cmdSeries.inline), and only after inflateAfter observations found it
// locked by another goroutine does it get the full set (cmdSeries.wide), so
// the many series of a tier that never see two goroutines at once hold one
// stripe, not 8 to 64.
// The output is what the vectors gave for the same observations (the sum is
// added up by stripe, so its last digits may differ). Each observation is
// written to exactly one stripe, under that stripe's lock, and a scrape reads
// every stripe (the inline one and the wide ones, if any) under its lock, so
// a scrape taken while commands are observed is a consistent snapshot, as
// client_golang's histograms give: the count is the outcomes' total and its
// buckets' (+Inf), the sum is of the same observations, and nothing counted
// is missing from a finite bucket it belongs in. The lock is its goroutine's
// own but when two share a stripe, and costs what the atomic adds it replaced
// did (BenchmarkObserve).
//
// Series are bound on first use (t.series), as the vectors' were.
type cmdCollector struct {
	tenants map[string]*tenant // not changed after build
	smask   uint32             // len(wide stripes)-1 in every cmdSeries
	reqDesc *prometheus.Desc
	latDesc *prometheus.Desc
}

var _ prometheus.Collector = (*cmdCollector)(nil)

// cmdSeries are one tenant's series for one command, bound once: looking
// labels up per command (WithLabelValues hashes them) cost more than the
// observation itself.
type cmdSeries struct {
	tenant, command string
	// wide is nil until the series is contended, then the stripes (smask+1)
	// that observations pick by stripeHint; set once, never replaced.
	wide atomic.Pointer[[]cmdStripe]
	// contended counts the observations that found inline locked while wide
	// was nil; the one that brings it to inflateAfter installs wide.
	contended atomic.Uint32
	// inline takes every observation until wide is set, and afterwards only
	// those that loaded wide before it was set.
	inline cmdStripe
}

// inflateAfter is the number of contended observations after which a series
// gets its wide stripes: a few, so that the odd lock held by a scrape or
// collision of two sessions leaves a series small, while a series written
// from several cores at once soon inflates. The count never decays: a series
// whose goroutines collide now and then over a long uptime inflates too.
const inflateAfter = 8

// cmdStripe is the share of one series written by the goroutines that pick
// it. The observation count is ok+failed (observe adds to exactly one of them
// per observation), so it costs no add of its own.
type cmdStripe struct {
	mu         sync.Mutex // guards the fields below
	ok, failed uint64
	// sum is the sum of the latencies in seconds, as the vectors kept it: a
	// sum in int64 nanoseconds wrapped negative after 292 years of latency,
	// 107 days of a thousand commands in flight.
	sum float64
	// buckets counts the observations of each latencyBuckets bound that are
	// above the bound below it: not cumulative, and those above the top
	// bound count in none.
	buckets [latencyBucketCount]uint64
	// The padding keeps the counters of two stripes off a common cache line
	// whatever the alignment of the slice.
	_ [64]byte
}

// latencyBucketCount is the number of latencyBuckets.
const latencyBucketCount = 18

// latencyBucketNanos are latencyBuckets in nanoseconds: d falls in bucket i
// (d.Seconds() <= latencyBuckets[i]) exactly when d <= latencyBucketNanos[i],
// so observe compares integers and still places every duration where the
// histogram of float seconds did.
var latencyBucketNanos = nanosBounds(latencyBuckets)

func newCmdCollector(tenants map[string]*tenant) *cmdCollector {
	// Four stripes per P or more: two goroutines running at once pick the
	// same stripe with probability 1/n.
	n := 1
	for n < min(max(4*runtime.GOMAXPROCS(0), 8), 64) {
		n <<= 1
	}
	return &cmdCollector{
		tenants: tenants,
		smask:   uint32(n - 1),
		reqDesc: prometheus.NewDesc("gateway_requests_total",
			"Commands by tenant, command and outcome (ok, error).", []string{"tenant", "command", "outcome"}, nil),
		latDesc: prometheus.NewDesc("gateway_request_seconds",
			"Command latency in the gateway (admission to reply), by tenant and command.", []string{"tenant", "command"}, nil),
	}
}

// observe records one command of spec by t: its outcome and its latency d.
func (c *cmdCollector) observe(t *tenant, spec *cmdSpec, ok bool, d time.Duration) {
	cs := t.series[spec.idx].Load()
	if cs == nil {
		cs = c.bind(t, spec)
	}
	i := 0
	for i < len(latencyBucketNanos) && int64(d) > latencyBucketNanos[i] {
		i++
	}
	st := c.lockStripe(cs)
	if ok {
		st.ok++
	} else {
		st.failed++
	}
	st.sum += d.Seconds()
	if i < latencyBucketCount {
		st.buckets[i]++
	}
	st.mu.Unlock()
}

// lockStripe returns the stripe of cs the caller writes, locked: its stripe
// of the wide ones once cs has them, else the inline one. An observation
// that finds the inline stripe locked counts as contended, and the
// inflateAfter-th installs the wide stripes and writes there.
func (c *cmdCollector) lockStripe(cs *cmdSeries) *cmdStripe {
	if w := cs.wide.Load(); w != nil {
		st := &(*w)[stripeHint()&c.smask]
		st.mu.Lock()
		return st
	}
	if cs.inline.mu.TryLock() {
		return &cs.inline
	}
	if cs.contended.Add(1) != inflateAfter {
		cs.inline.mu.Lock()
		return &cs.inline
	}
	// Only this observation reaches inflateAfter, and wide is set only here;
	// the CompareAndSwap keeps it set once should that ever change.
	w := make([]cmdStripe, c.smask+1)
	cs.wide.CompareAndSwap(nil, &w)
	st := &(*cs.wide.Load())[stripeHint()&c.smask]
	st.mu.Lock()
	return st
}

// bind makes t's series for spec, or returns the one a racing observe bound
// first: two series, one of them lost, would lose its observations.
func (c *cmdCollector) bind(t *tenant, spec *cmdSpec) *cmdSeries {
	cs := &cmdSeries{tenant: t.cfg.Name, command: spec.name}
	if t.series[spec.idx].CompareAndSwap(nil, cs) {
		return cs
	}
	return t.series[spec.idx].Load()
}

// eachStripe calls f with every stripe of cs, unlocked: the inline one, then
// the wide ones if cs has them.
func (cs *cmdSeries) eachStripe(f func(st *cmdStripe)) {
	f(&cs.inline)
	if w := cs.wide.Load(); w != nil {
		for i := range *w {
			f(&(*w)[i])
		}
	}
}

// Describe implements prometheus.Collector.
func (c *cmdCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.reqDesc
	ch <- c.latDesc
}

// Collect implements prometheus.Collector: the bound series' stripes summed.
func (c *cmdCollector) Collect(ch chan<- prometheus.Metric) {
	for _, t := range c.tenants {
		for i := range t.series {
			if cs := t.series[i].Load(); cs != nil {
				c.collect(ch, cs)
			}
		}
	}
}

// collect sends the metrics of one series.
func (c *cmdCollector) collect(ch chan<- prometheus.Metric, cs *cmdSeries) {
	var buckets [latencyBucketCount]uint64
	var ok, failed uint64
	var sum float64
	cs.eachStripe(func(st *cmdStripe) {
		st.mu.Lock()
		for j, n := range st.buckets {
			buckets[j] += n
		}
		ok += st.ok
		failed += st.failed
		sum += st.sum
		st.mu.Unlock()
	})
	cumulative := make(map[float64]uint64, len(buckets))
	var below uint64
	for j, n := range buckets {
		below += n
		cumulative[latencyBuckets[j]] = below
	}
	ch <- prometheus.MustNewConstMetric(c.reqDesc, prometheus.CounterValue, float64(ok), cs.tenant, cs.command, "ok")
	ch <- prometheus.MustNewConstMetric(c.reqDesc, prometheus.CounterValue, float64(failed), cs.tenant, cs.command, "error")
	ch <- prometheus.MustNewConstHistogram(c.latDesc, ok+failed, sum, cumulative, cs.tenant, cs.command)
}

// stripeHint picks the calling goroutine's stripe by the address of its
// stack, as the cache's stripeOf does: it stays put while the goroutine runs
// (a stack that grows moves, which only changes the stripe) and differs
// between goroutines running at once. The address is only hashed, never
// dereferenced. Unlike the cache's stripes it is never dealt again: two
// long-lived sessions that pick one stripe share its lines for as long as
// both run, at up to about 0.1 µs per command (BenchmarkObserve's slow runs
// with two goroutines: 33-99 ns against 10), small beside a command's cost.
func stripeHint() uint32 {
	var x byte
	return uint32(mix.Mix64(uint64(uintptr(unsafe.Pointer(&x)))) >> 32)
}

// nanosBounds converts bounds in seconds to the largest durations whose
// Seconds are at most each bound. Duration.Seconds is monotone, so a
// duration is within a bound exactly when it is within its conversion.
func nanosBounds(bounds []float64) []int64 {
	if len(bounds) != latencyBucketCount {
		panic("gateway: latencyBuckets and latencyBucketCount disagree")
	}
	out := make([]int64, len(bounds))
	for i, b := range bounds {
		n := int64(math.Floor(b * 1e9))
		for time.Duration(n).Seconds() > b {
			n--
		}
		for time.Duration(n+1).Seconds() <= b {
			n++
		}
		out[i] = n
	}
	return out
}
