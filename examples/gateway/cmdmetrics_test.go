package main

import (
	"math"
	"math/rand/v2"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cmdSample is one series of a gather: the counters and the histogram of one
// tenant and command.
type cmdSample struct {
	ok, failed float64
	count      uint64
	sum        float64
	buckets    []uint64 // cumulative, by latencyBuckets
}

// newTestCollector registers a cmdCollector over the named tenants in a
// registry of its own.
func newTestCollector(t testing.TB, names ...string) (*cmdCollector, *prometheus.Registry, map[string]*tenant) {
	t.Helper()
	tenants := map[string]*tenant{}
	for _, name := range names {
		tenants[name] = newTenant(TenantConfig{Name: name})
	}
	c := newCmdCollector(tenants)
	reg := prometheus.NewRegistry()
	require.NoError(t, reg.Register(c))
	return c, reg, tenants
}

// gatherCmds gathers reg and returns its series by "tenant/command", checking
// the families' help texts and the bucket bounds on the way.
func gatherCmds(t testing.TB, reg prometheus.Gatherer) map[string]*cmdSample {
	t.Helper()
	mfs, err := reg.Gather()
	require.NoError(t, err)
	out := map[string]*cmdSample{}
	get := func(labels map[string]string) *cmdSample {
		k := labels["tenant"] + "/" + labels["command"]
		if out[k] == nil {
			out[k] = &cmdSample{}
		}
		return out[k]
	}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			switch mf.GetName() {
			case "gateway_requests_total":
				require.Equal(t, "Commands by tenant, command and outcome (ok, error).", mf.GetHelp())
				s := get(labels)
				switch labels["outcome"] {
				case "ok":
					s.ok = m.GetCounter().GetValue()
				case "error":
					s.failed = m.GetCounter().GetValue()
				default:
					t.Fatalf("outcome %q", labels["outcome"])
				}
			case "gateway_request_seconds":
				require.Equal(t, "Command latency in the gateway (admission to reply), by tenant and command.", mf.GetHelp())
				s, h := get(labels), m.GetHistogram()
				s.count, s.sum = h.GetSampleCount(), h.GetSampleSum()
				require.Len(t, h.GetBucket(), len(latencyBuckets))
				for i, b := range h.GetBucket() {
					require.Equal(t, latencyBuckets[i], b.GetUpperBound())
					s.buckets = append(s.buckets, b.GetCumulativeCount())
				}
			}
		}
	}
	return out
}

// cumulativeOf is the cumulative bucket counts of observations that fall in
// the given buckets (len(latencyBuckets): above the top bound).
func cumulativeOf(in ...int) []uint64 {
	out := make([]uint64, len(latencyBuckets))
	for _, b := range in {
		for i := b; i < len(out); i++ {
			out[i]++
		}
	}
	return out
}

func TestCmdCollectorBuckets(t *testing.T) {
	const us = time.Microsecond
	top := len(latencyBuckets) - 1
	type obs struct {
		d      time.Duration
		ok     bool
		bucket int // the bucket it falls in, hand-computed
	}
	tests := []struct {
		name string
		give []obs
	}{
		{"zero", []obs{{0, true, 0}}},
		{"on the first bound", []obs{{50 * us, true, 0}}},
		{"just above the first bound", []obs{{50*us + 1, true, 1}}},
		{"on the second bound", []obs{{100 * us, false, 1}}},
		{"just above the second bound", []obs{{100*us + 1, false, 2}}},
		{"on 1.6384 s", []obs{{1638400 * us, true, 15}}},
		{"just above 1.6384 s", []obs{{1638400*us + 1, true, 16}}},
		{"on the top bound", []obs{{6553600 * us, true, top}}},
		{"just above the top bound", []obs{{6553600*us + 1, true, top + 1}}},
		{"request timeout", []obs{{5 * time.Second, false, top}}},
		{"above the top bound", []obs{{time.Minute, false, top + 1}}},
		{"several", []obs{
			{20 * us, true, 0}, {75 * us, true, 1}, {75 * us, false, 1},
			{3 * time.Millisecond, true, 6}, {10 * time.Second, false, top + 1},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, reg, tenants := newTestCollector(t, "a")
			want := &cmdSample{}
			var in []int
			var sum time.Duration
			for _, o := range tt.give {
				c.observe(tenants["a"], commands["GET"], o.ok, o.d)
				in = append(in, o.bucket)
				sum += o.d
				want.count++
				if o.ok {
					want.ok++
				} else {
					want.failed++
				}
			}
			want.buckets = cumulativeOf(in...)
			want.sum = sum.Seconds()
			got := gatherCmds(t, reg)
			require.Len(t, got, 1)
			require.Contains(t, got, "a/GET")
			assert.Equal(t, want, got["a/GET"])
		})
	}
}

// TestCmdCollectorUnbound: a series shows only once a command of it was
// observed, and then with both outcomes, as the vectors' bound series did.
func TestCmdCollectorUnbound(t *testing.T) {
	c, reg, tenants := newTestCollector(t, "a", "b")
	assert.Empty(t, gatherCmds(t, reg))
	c.observe(tenants["b"], commands["SET"], true, time.Millisecond)
	got := gatherCmds(t, reg)
	require.Len(t, got, 1)
	assert.Equal(t, &cmdSample{ok: 1, count: 1, sum: 1e-3, buckets: cumulativeOf(5)}, got["b/SET"])
}

// TestCmdCollectorBindOnce: an observe that finds its series unbound but
// loses the race to bind it uses the winner's, whose observations a second
// series would have hidden.
func TestCmdCollectorBindOnce(t *testing.T) {
	c, reg, tenants := newTestCollector(t, "a")
	first := c.bind(tenants["a"], commands["GET"])
	require.Same(t, first, c.bind(tenants["a"], commands["GET"]))
	c.observe(tenants["a"], commands["GET"], true, 0)
	assert.Equal(t, 1.0, gatherCmds(t, reg)["a/GET"].ok)
}

// vecMetrics are the client_golang vectors cmdCollector replaced, as the
// gateway declared them, for the equivalence test and the benchmark.
type vecMetrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
}

func newVecMetrics(reg prometheus.Registerer) vecMetrics {
	v := vecMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "gateway_requests_total",
			Help: "Commands by tenant, command and outcome (ok, error)."}, []string{"tenant", "command", "outcome"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "gateway_request_seconds",
			Help:    "Command latency in the gateway (admission to reply), by tenant and command.",
			Buckets: latencyBuckets}, []string{"tenant", "command"}),
	}
	reg.MustRegister(v.requests, v.latency)
	return v
}

// vecSeries are one bound series of vecMetrics, as the gateway's cmdSeries
// held them.
type vecSeries struct {
	ok, failed prometheus.Counter
	latency    prometheus.Observer
}

func (v vecMetrics) bind(tenant, command string) vecSeries {
	return vecSeries{
		ok:      v.requests.WithLabelValues(tenant, command, "ok"),
		failed:  v.requests.WithLabelValues(tenant, command, "error"),
		latency: v.latency.WithLabelValues(tenant, command),
	}
}

func (s vecSeries) observe(ok bool, d time.Duration) {
	if ok {
		s.ok.Inc()
	} else {
		s.failed.Inc()
	}
	s.latency.Observe(d.Seconds())
}

// scrape is what /metrics serves for reg.
func scrape(t *testing.T, reg prometheus.Gatherer) string {
	t.Helper()
	rec := httptest.NewRecorder()
	promhttp.HandlerFor(reg, promhttp.HandlerOpts{}).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	require.Equal(t, 200, rec.Code)
	return rec.Body.String()
}

// randomLatency is a duration spread over every bucket: a bound, a bound and
// a nanosecond either side, or a random duration up to twice the top bound.
func randomLatency(r *rand.Rand) time.Duration {
	top := time.Duration(latencyBuckets[len(latencyBuckets)-1] * 1e9)
	switch r.IntN(4) {
	case 0:
		return latencyBucket(r) + time.Duration(r.IntN(3)-1)
	case 1:
		return time.Duration(r.Int64N(int64(2 * top)))
	default: // most commands are fast
		return time.Duration(r.Int64N(int64(2 * time.Millisecond)))
	}
}

func latencyBucket(r *rand.Rand) time.Duration {
	return time.Duration(math.Round(latencyBuckets[r.IntN(len(latencyBuckets))] * 1e9))
}

// TestCmdCollectorMatchesVectors: the same random observations give the same
// scrape from cmdCollector as from the client_golang vectors it replaced,
// but for the sums' last digits.
func TestCmdCollectorMatchesVectors(t *testing.T) {
	names := []string{"default", "a-b", "shop"}
	cmds := []*cmdSpec{commands["GET"], commands["SET"], commands["MGET"], commands["EXEC"]}
	c, reg, tenants := newTestCollector(t, names...)
	vreg := prometheus.NewRegistry()
	vec := newVecMetrics(vreg)
	bound := map[string]vecSeries{}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		name, spec := names[r.IntN(len(names))], cmds[r.IntN(len(cmds))]
		if name == "shop" && spec.name == "EXEC" {
			continue // a series never bound is in neither scrape
		}
		ok, d := r.IntN(5) > 0, randomLatency(r)
		c.observe(tenants[name], spec, ok, d)
		k := name + "/" + spec.name
		if _, done := bound[k]; !done {
			bound[k] = vec.bind(name, spec.name)
		}
		bound[k].observe(ok, d)
	}
	got, want := strings.Split(scrape(t, reg), "\n"), strings.Split(scrape(t, vreg), "\n")
	require.Len(t, got, len(want))
	sums := 0
	for i := range want {
		g, w := strings.Fields(got[i]), strings.Fields(want[i])
		if len(w) == 2 && strings.HasPrefix(w[0], "gateway_request_seconds_sum{") {
			sums++
			require.Equal(t, w[0], g[0])
			wv, err := strconv.ParseFloat(w[1], 64)
			require.NoError(t, err)
			gv, err := strconv.ParseFloat(g[1], 64)
			require.NoError(t, err)
			require.InEpsilon(t, wv, gv, 1e-9, w[0])
			continue
		}
		require.Equal(t, want[i], got[i], "line %d", i+1)
	}
	require.Equal(t, len(names)*len(cmds)-1, sums)
}

// TestCmdCollectorConcurrent: goroutines observe, some of them binding the
// same series at once, while another gathers over and over. Every gather is
// monotone (no count decreases, the buckets are cumulative and within the
// count) and the last one counts every observation.
func TestCmdCollectorConcurrent(t *testing.T) {
	const workers, each = 8, 2000
	c, reg, tenants := newTestCollector(t, "a", "b")
	cmds := []*cmdSpec{commands["GET"], commands["SET"]}
	durations := []time.Duration{0, 50 * time.Microsecond, 50*time.Microsecond + 1, 3 * time.Millisecond, 10 * time.Second}

	var wg sync.WaitGroup
	start := make(chan struct{}) // the first observes race to bind the series
	for w := range workers {
		wg.Go(func() {
			<-start
			for i := range each {
				ten := tenants[[]string{"a", "b"}[(w+i)%2]]
				c.observe(ten, cmds[i%len(cmds)], i%3 != 0, durations[i%len(durations)])
			}
		})
	}
	close(start)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	// The test goroutine gathers until the observers are done, at least twice.
	prev := map[string]*cmdSample{}
	for n := 0; ; n++ {
		cur := gatherCmds(t, reg)
		for k, s := range cur {
			checkMonotone(t, k, prev[k], s)
		}
		prev = cur
		select {
		case <-done:
		default:
			continue
		}
		if n > 0 {
			break
		}
	}

	want := map[string]*cmdSample{}
	for w := range workers {
		for i := range each {
			k := []string{"a", "b"}[(w+i)%2] + "/" + cmds[i%len(cmds)].name
			if want[k] == nil {
				want[k] = &cmdSample{buckets: make([]uint64, len(latencyBuckets))}
			}
			s, d := want[k], durations[i%len(durations)]
			if i%3 != 0 {
				s.ok++
			} else {
				s.failed++
			}
			s.count++
			s.sum += d.Seconds()
			for j, b := range latencyBuckets {
				if d.Seconds() <= b {
					s.buckets[j]++
				}
			}
		}
	}
	got := gatherCmds(t, reg)
	require.Len(t, got, len(want))
	for k, w := range want {
		require.InEpsilon(t, w.sum, got[k].sum, 1e-9, k)
		w.sum = got[k].sum
		assert.Equal(t, w, got[k], k)
	}
}

// checkMonotone fails unless cur is a consistent gather of series k no
// smaller than prev (nil: the first gather of it).
func checkMonotone(t *testing.T, k string, prev, cur *cmdSample) {
	var below uint64
	for i, n := range cur.buckets {
		if n < below {
			t.Errorf("%s: bucket %d (%d) below bucket %d (%d)", k, i, n, i-1, below)
		}
		below = n
	}
	if below > cur.count {
		t.Errorf("%s: top bucket %d above count %d", k, below, cur.count)
	}
	if cur.count != uint64(cur.ok+cur.failed) {
		t.Errorf("%s: count %d, ok %v + error %v", k, cur.count, cur.ok, cur.failed)
	}
	if prev == nil {
		return
	}
	if cur.ok < prev.ok || cur.failed < prev.failed || cur.count < prev.count || cur.sum < prev.sum {
		t.Errorf("%s: went down: %+v after %+v", k, cur, prev)
	}
	for i := range cur.buckets {
		if cur.buckets[i] < prev.buckets[i] {
			t.Errorf("%s: bucket %d went down: %d after %d", k, i, cur.buckets[i], prev.buckets[i])
		}
	}
}

// BenchmarkObserve records commands of one tenant and command from every P at
// once: the client_golang vectors the gateway used (bound series, as it held
// them) against cmdCollector.
func BenchmarkObserve(b *testing.B) {
	durations := make([]time.Duration, 64)
	r := rand.New(rand.NewPCG(3, 4))
	for i := range durations {
		durations[i] = time.Duration(r.Int64N(int64(500 * time.Microsecond)))
	}
	b.Run("impl=client_golang", func(b *testing.B) {
		s := newVecMetrics(prometheus.NewRegistry()).bind("default", "SET")
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			i := 0
			for pb.Next() {
				s.observe(i%16 != 0, durations[i%len(durations)])
				i++
			}
		})
	})
	b.Run("impl=striped", func(b *testing.B) {
		c, _, tenants := newTestCollector(b, "default")
		ten, spec := tenants["default"], commands["SET"]
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			i := 0
			for pb.Next() {
				c.observe(ten, spec, i%16 != 0, durations[i%len(durations)])
				i++
			}
		})
	})
}
