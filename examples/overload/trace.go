package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/metrics"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tierkit/tierkit/shed"
)

// period is what the real mode records every control period of the measured
// run, to explain its rejections: the signal and the limit, the shedder's state,
// the normal requests shed in the period, and what else used the CPU (the Go
// runtime, other processes of the machine).
type period struct {
	at          time.Duration // since the measured run began
	load        float64       // the aimd signal: process CPU over the budget
	limit       int
	inflight    int64
	queued      int
	normalShed  [3]int64 // in the period: client timeout, bucket full, queue deadline
	noisyShed   int64
	overByShed  int64 // tenants marked over their share in the period, on a shed
	overByLevel int64 // on the share level
	level       int64
	schedP99    time.Duration // goroutine scheduling latency, 99th percentile in the period
	mutexWait   time.Duration // time goroutines spent blocked on sync.Mutex in the period
	gcCycles    uint64
	others      float64 // CPU of the rest of the machine, in cores (-1: unknown)
	steal       float64 // CPU the hypervisor gave to other machines while this one wanted it, in cores (-1: unknown)
	slowdown    float64 // CPU time of a fixed spin at the period's end over its calibrated time (-1: unknown)
}

// probe reads the cumulative counters a period is the difference of.
type probe struct {
	samples   []metrics.Sample
	sched     []uint64 // cumulative scheduling latency histogram
	mutexWait float64
	gc        uint64
	machine   time.Duration // busy CPU of the whole machine (-1: unknown)
	steal     time.Duration // stolen by the hypervisor (-1: unknown)
	proc      time.Duration
	normal    [3]int64
	noisy     int64
	byShed    int64
	byLevel   int64
}

func newProbe() *probe {
	return &probe{samples: []metrics.Sample{
		{Name: "/sched/latencies:seconds"},
		{Name: "/sync/mutex/wait/total:seconds"},
		{Name: "/gc/cycles/total:gc-cycles"},
	}}
}

// read fills a fresh probe with the current cumulative values.
func (p *probe) read(ps *phaseStats, st shed.Stats) *probe {
	n := &probe{samples: p.samples}
	metrics.Read(n.samples)
	if h := n.samples[0].Value; h.Kind() == metrics.KindFloat64Histogram {
		n.sched = append([]uint64(nil), h.Float64Histogram().Counts...)
	}
	if v := n.samples[1].Value; v.Kind() == metrics.KindFloat64 {
		n.mutexWait = v.Float64()
	}
	if v := n.samples[2].Value; v.Kind() == metrics.KindUint64 {
		n.gc = v.Uint64()
	}
	n.machine, n.steal = machineBusy()
	n.proc, _ = processCPU()
	if ps != nil {
		for i, r := range []int{0, int(shed.ReasonBucketFull), int(shed.ReasonQueueDeadline)} {
			n.normal[i] = ps.why[0][r].Load()
		}
		n.noisy = ps.shed[1].Load()
	}
	n.byShed, n.byLevel = st.OverShareByShed, st.OverShareByLevel
	return n
}

// delta fills the counters of pr from the probes before (p) and after (n) it.
func (p *probe) delta(n *probe, pr *period, wall time.Duration) {
	for i := range pr.normalShed {
		pr.normalShed[i] = n.normal[i] - p.normal[i]
	}
	pr.noisyShed = n.noisy - p.noisy
	pr.overByShed, pr.overByLevel = n.byShed-p.byShed, n.byLevel-p.byLevel
	pr.mutexWait = time.Duration((n.mutexWait - p.mutexWait) * float64(time.Second))
	pr.gcCycles = n.gc - p.gc
	pr.schedP99 = p99(p.sched, n.sched, p.samples[0].Value)
	pr.slowdown = spinSlowdown()
	pr.others, pr.steal = -1, -1
	if n.machine >= 0 && p.machine >= 0 && wall > 0 {
		pr.others = max(0, (n.machine-p.machine-(n.proc-p.proc)).Seconds()/wall.Seconds())
		pr.steal = (n.steal - p.steal).Seconds() / wall.Seconds()
	}
}

// p99 is the 99th percentile of the histogram counts added between a and b.
func p99(a, b []uint64, v metrics.Value) time.Duration {
	if len(a) != len(b) || len(b) == 0 || v.Kind() != metrics.KindFloat64Histogram {
		return 0
	}
	buckets := v.Float64Histogram().Buckets
	var total uint64
	for i := range b {
		total += b[i] - a[i]
	}
	if total == 0 {
		return 0
	}
	want := total - total/100
	var c uint64
	for i := range b {
		if c += b[i] - a[i]; c >= want {
			hi := buckets[i+1]
			if math.IsInf(hi, 1) {
				hi = buckets[i]
			}
			return time.Duration(hi * float64(time.Second))
		}
	}
	return 0
}

// machineBusy returns the busy CPU time of the whole machine (all processes)
// and the time stolen by the hypervisor, from /proc/stat, or -1 where they
// cannot be read.
func machineBusy() (busy, steal time.Duration) {
	f, err := os.Open("/proc/stat")
	if err != nil {
		return -1, -1
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "cpu ") {
		return -1, -1
	}
	const userHZ = 100 // USER_HZ, 100 on every Linux architecture Go supports
	for i, field := range strings.Fields(line)[1:] {
		v, err := strconv.ParseInt(field, 10, 64)
		if err != nil {
			return -1, -1
		}
		d := time.Duration(v) * time.Second / userHZ
		switch {
		case i == 7:
			steal = d
		case i != 3 && i != 4 && i < 7: // user, nice, system, irq, softirq (guest time is in user)
			busy += d
		}
	}
	return busy, steal
}

// writeTrace writes the periods as tab-separated values.
func writeTrace(w io.Writer, ps []period) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "t_s\tload\tlimit\tinflight\tqueued\tnormal_timeout\tnormal_full\tnormal_deadline\tnoisy_shed\tover_by_shed\tover_by_level\tlevel\tsched_p99_us\tmutex_wait_ms\tgc\tothers_cores\tsteal_cores\tslowdown")
	for _, p := range ps {
		fmt.Fprintf(bw, "%.1f\t%.3f\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%.2f\t%d\t%.2f\t%.2f\t%.2f\n",
			p.at.Seconds(), p.load, p.limit, p.inflight, p.queued, p.normalShed[0], p.normalShed[1], p.normalShed[2],
			p.noisyShed, p.overByShed, p.overByLevel, p.level, p.schedP99.Microseconds(),
			float64(p.mutexWait)/float64(time.Millisecond), p.gcCycles, p.others, p.steal, p.slowdown)
	}
	return bw.Flush()
}

// explain prints what the periods with normal rejections had in common with
// the quiet periods just before them, against all periods: the answer to
// "why were normal tenants rejected". A period counts as just before the
// rejections when it had none itself and the next one had some: in a run of
// consecutive periods with rejections, the earlier ones belong with the
// rejections, not with what led up to them.
func explain(w io.Writer, ps []period) {
	if len(ps) == 0 {
		return
	}
	var hit, before []period
	for i, p := range ps {
		if !p.rejected() {
			continue
		}
		hit = append(hit, p)
		if i > 0 && !ps[i-1].rejected() {
			before = append(before, ps[i-1])
		}
	}
	fmt.Fprintf(w, "  periods with a normal rejection: %d of %d\n", len(hit), len(ps))
	row := func(name string, s []period) {
		if len(s) == 0 {
			return
		}
		fmt.Fprintf(w, "    %-30s load median %5.1f%% max %5.1f%%  limit median %3d  sched p99 median %6v  mutex wait median %6v  GC cycles %d  others median %.2f cores  steal max %.2f  over-share marks (shed/level) %d/%d\n",
			name, 100*medianF(s, func(p period) float64 { return p.load }), 100*maxF(s, func(p period) float64 { return p.load }),
			int(medianF(s, func(p period) float64 { return float64(p.limit) })),
			time.Duration(medianF(s, func(p period) float64 { return float64(p.schedP99) })).Round(time.Microsecond),
			time.Duration(medianF(s, func(p period) float64 { return float64(p.mutexWait) })).Round(time.Microsecond),
			sumI(s, func(p period) int64 { return int64(p.gcCycles) }),
			medianF(s, func(p period) float64 { return p.others }), maxF(s, func(p period) float64 { return p.steal }),
			sumI(s, func(p period) int64 { return p.overByShed }), sumI(s, func(p period) int64 { return p.overByLevel }))
	}
	row("all periods", ps)
	row("periods with a rejection", hit)
	row("quiet periods just before them", before)
}

// rejected reports whether a normal request was shed in the period.
func (p period) rejected() bool {
	return p.normalShed[0]+p.normalShed[1]+p.normalShed[2] > 0
}

func medianF(ps []period, f func(period) float64) float64 {
	v := make([]float64, len(ps))
	for i, p := range ps {
		v[i] = f(p)
	}
	sort.Float64s(v)
	return v[len(v)/2]
}

func maxF(ps []period, f func(period) float64) float64 {
	m := math.Inf(-1)
	for _, p := range ps {
		m = max(m, f(p))
	}
	return m
}

func sumI(ps []period, f func(period) int64) int64 {
	var s int64
	for _, p := range ps {
		s += f(p)
	}
	return s
}
