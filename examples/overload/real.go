package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tierkit/tierkit/aimd"
	"github.com/tierkit/tierkit/shed"
)

// realConfig configures the real mode: real goroutines and a CPU-burning handler
// behind an aimd.Limiter (the shed capacity) and a shed.Shedder.
type realConfig struct {
	Duration     time.Duration // measured run, after the warm-up
	Warmup       time.Duration // warm-up and calibration before it (default 5s)
	Work         time.Duration // CPU per unit of cost (default 200µs)
	Backend      time.Duration // backend wait per request after the CPU work (default 10ms)
	Profile      string        // CPU profile file, for the shed/aimd share ("" for none)
	ProfileHz    int           // the profile's sampling rate (default 100)
	MutexProfile string        // mutex contention profile of the measured run ("" for none)
	Target       float64       // CPU utilization aimd holds (default 0.9)
	// QueueDeadline is the shedder's queue deadline (default 80ms: the client
	// gives up after 100ms; see defaultQueueDeadline).
	QueueDeadline time.Duration
	// Cores is the CPU budget, in cores, that the target is a fraction of
	// (default GOMAXPROCS). On a machine shared with other work, a budget below
	// what the process can get keeps the experiment meaningful: the signal is
	// this process's own CPU over the budget.
	Cores float64
	// Burst is an outside CPU burst injected into the measured run (none if
	// its For is zero).
	Burst burstSpec
	// Recover turns on aimd's fast recovery (aimd.Config.Recover).
	Recover bool
	// Nice is the niceness the process runs at (main applies it; 0: left as
	// it was), reported with the results.
	Nice int
	// AtDeadline turns off shed.Config.ShedOnArrival: the floods' excess is
	// queued and shed at its deadline, as before that option.
	AtDeadline bool
	// RT is the real-time round-robin priority the process runs at (main
	// applies it; 0: the normal policy), reported with the results.
	RT int
	// Trace, if set, receives one line per control period of the measured run.
	Trace io.Writer
	// SchedTarget, if positive, also holds the Go scheduler's 99th-percentile
	// latency below it (aimd.MaxOf with aimd.SchedLatency): a starved process
	// then backs off instead of opening the limit.
	SchedTarget time.Duration
	// Recal, if positive, repeats the warm-up's calibration for this long
	// after the measured run (the same mix at the same nominal rate), so that
	// the report can tell a calibration the machine's state moved during the
	// run (on these VMs, the time a line takes between the cores) from the
	// shedder's cost. Goodput is judged on the calibration before the run.
	Recal time.Duration
	// NoisyCost is the cost of a noisy tenant's request in the measured run
	// (1 or the second variant, 4: the noisy request burns that many
	// units of Work and is charged that cost by the shedder). The warm-up's
	// calibration always uses cost 1.
	NoisyCost int64
}

// phaseStats counts the outcome of the requests that arrived in one phase, per
// class (0 normal, 1 noisy).
type phaseStats struct {
	offered, admitted, shed, inDeadline [2]atomic.Int64
	costInDeadline                      [2]atomic.Int64    // units of cost served within deadline
	why                                 [2][5]atomic.Int64 // shed by reason; [0] is the client's timeout
	rejected                            []atomic.Bool      // per tenant
}

func newPhaseStats(tenants int) *phaseStats {
	return &phaseStats{rejected: make([]atomic.Bool, tenants)}
}

// normalRejected is the number of normal tenants with at least one rejection.
func (p *phaseStats) normalRejected(normal int) int {
	n := 0
	for i := range normal {
		if p.rejected[i].Load() {
			n++
		}
	}
	return n
}

type realResult struct {
	cfg                realConfig
	warm, run          *phaseStats
	nominal, capacity  float64       // requests per second at the target: assumed (work only) and calibrated
	cpuPerReq          time.Duration // process CPU per admitted request during the calibration
	cpuPerReqAfter     time.Duration // the same after the measured run (Recal), or zero
	cpuMean, cpuStd    float64       // utilization samples of the measured run
	cpuSamples         int
	within3            int // periods within the target +-3%
	secWithin3, secs   int // whole seconds within the target +-3%
	limitMin, limitMax int
	periods            []period
	rejectedSizes      []int         // requests offered by each normal tenant with a rejection, ascending
	normalSizes        []int         // requests offered by each normal tenant, ascending
	procCPU            time.Duration // measured run
	wall               time.Duration // measured run
	onArrival          int64         // requests shed on arrival in the measured run
	machinery          share         // profile samples under shed and aimd
	machineryErr       error         // reading the profile
	// c2c is the core-to-core round trip (corelat) before the warm-up and
	// after the measured run (after the calibration that follows it, with
	// Recal), zero where it could not be measured.
	c2c [2]time.Duration
}

// itersPerMicro calibrates spin, once.
var itersPerMicro = calibrate()

var burnSink atomic.Uint64

// calibrate returns spin iterations per microsecond: the best of a few short runs,
// so that a run descheduled by a busy machine does not skew it.
func calibrate() float64 {
	const n = 200_000
	best := time.Duration(math.MaxInt64)
	for range 7 {
		start := time.Now()
		spin(n)
		best = min(best, time.Since(start))
	}
	return n / (float64(best) / float64(time.Microsecond))
}

func spin(n int) {
	x := uint64(1)
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	burnSink.Add(x & 1)
}

// realTier is the system under test: the limiter, the shedder and the handler.
type realTier struct {
	cfg      realConfig
	lim      *aimd.Limiter
	sh       *shed.Shedder
	deadline time.Duration
	lastLoad atomic.Value // float64: the latest CPU sample
}

func newRealTier(cfg realConfig) (*realTier, error) {
	t := &realTier{cfg: cfg, deadline: defaultScenario(0, 1).Deadline}
	cpuSig := &aimd.ProcessCPU{Cores: cfg.Cores}
	ac := realAimd(cfg.Target)
	ac.Manual, ac.MemoryLimit, ac.Recover = true, -1, cfg.Recover
	cpu := aimd.SignalFunc(func(now time.Time) (float64, error) {
		v, err := cpuSig.Sample(now)
		t.lastLoad.Store(v)
		return v, err
	})
	ac.Signal = cpu
	if cfg.SchedTarget > 0 {
		ac.Target = 1
		ac.Signal = aimd.MaxOf{{Signal: cpu, Target: cfg.Target}, {Signal: &aimd.SchedLatency{}, Target: cfg.SchedTarget.Seconds()}}
	}
	lim, err := aimd.New(ac)
	if err != nil {
		return nil, err
	}
	sc := realShed(cfg.QueueDeadline)
	sc.Capacity, sc.ShedOnArrival = lim, !cfg.AtDeadline
	sh, err := shed.New(sc)
	if err != nil {
		return nil, err
	}
	t.lim, t.sh = lim, sh
	return t, nil
}

// realAimd is the aimd configuration of the real mode (and of its closed-loop
// model) at the given target, without a signal.
func realAimd(target float64) aimd.Config {
	// A proportional loop: a CPU signal sampled every 100 ms is noisy (sd
	// about 2 points), and the full correction of each high reading, then a
	// climb of 1 per period, made a sawtooth of +-5 to 10% of the limit on
	// top of that noise (HISTORY.md). Backoff 0.3 corrects 30% of an excess
	// (escalated over runs of high readings, so a real overload still cuts
	// fast), Gain 0.4 about as much of a shortfall.
	return aimd.Config{Target: target, Min: 1, Max: 256, Initial: 4,
		Increase: 0.1, Gain: 0.4, Backoff: 0.3, Decrease: 0.9}
}

// realShed is the shed configuration of the real mode (and of its model)
// with the given queue deadline. Tenants under their share are served in
// arrival order, so that their requests wait about as long as a capacity dip
// lasts and no longer (HISTORY.md).
func realShed(qd time.Duration) shed.Config {
	return shed.Config{Priorities: 2, MaxQueue: 64, QueueDeadline: qd,
		StandingDeadline: 10 * time.Millisecond, FreshArrivalOrder: true, ShedOnArrival: true}
}

// serve runs one request that the client meant to send at sched: admission
// by the shedder, then the CPU work and the backend wait, accounted in p.
func (t *realTier) serve(p *phaseStats, r request, sched time.Time) {
	k := b2i(r.noisy)
	// The client's clock starts at the earlier of the scheduled arrival and
	// now: a generator or a goroutine start running late on a busy machine is
	// the client's wait too, and counts against its deadline.
	start := time.Now()
	if sched.Before(start) {
		start = sched
	}
	rctx, rcancel := context.WithDeadline(context.Background(), start.Add(t.deadline))
	defer rcancel()
	release, err := t.sh.Acquire(rctx, r.name, r.prio, r.cost)
	if err != nil {
		if !errors.Is(err, shed.ErrShed) && !errors.Is(err, context.DeadlineExceeded) {
			panic(err)
		}
		p.shed[k].Add(1)
		var se *shed.ShedError
		switch {
		case errors.As(err, &se):
			p.why[k][se.Reason].Add(1)
		default: // the client's deadline passed while queued
			p.why[k][0].Add(1)
		}
		p.rejected[r.tenant].Store(true)
		return
	}
	p.admitted[k].Add(1)
	burn(time.Duration(r.cost) * t.cfg.Work)
	// The backend round trip: a gateway request mostly waits, so the
	// concurrency that saturates the CPU is large (about 90 here) and the
	// limit can be regulated in steps of about 1% of the CPU (with 5 ms, 2%: the sawtooth then
	// runs into the 100% ceiling at a 90% target; HISTORY.md).
	time.Sleep(t.cfg.Backend)
	release()
	if time.Since(start) <= t.deadline {
		p.inDeadline[k].Add(1)
		p.costInDeadline[k].Add(r.cost)
	}
}

// launch offers reqs open-loop from begin (each request in its own goroutine,
// accounted in p), returns after the last arrival, and returns a func that
// waits until every request has finished.
func (t *realTier) launch(p *phaseStats, reqs []request, begin time.Time) (wait func()) {
	var wg sync.WaitGroup
	for i := range reqs {
		r := reqs[i]
		if d := time.Until(begin.Add(r.arrive)); d > 200*time.Microsecond {
			time.Sleep(d) // pacing the open-loop generator
		}
		p.offered[b2i(r.noisy)].Add(1)
		wg.Go(func() { t.serve(p, r, begin.Add(r.arrive)) })
	}
	return wg.Wait
}

// drive is launch, returning once every request has finished.
func (t *realTier) drive(p *phaseStats, reqs []request, begin time.Time) {
	t.launch(p, reqs, begin)()
}

// rescale stretches the arrival times of reqs, drawn at a capacity k times
// the one to offer (k >= 1), by k, and drops the arrivals past d: a Poisson
// stream at rate r stretched by k is one at rate r/k, and every tenant's rate
// is in proportion to the capacity, so the stream is the mix at the capacity
// to offer (up to rounding in the draws).
func rescale(reqs []request, k float64, d time.Duration) []request {
	for i := range reqs {
		at := time.Duration(float64(reqs[i].arrive) * k)
		if at >= d {
			return reqs[:i]
		}
		reqs[i].deadline += at - reqs[i].arrive
		reqs[i].arrive = at
	}
	return reqs
}

// realScenario is the experiment's tenant mix at capacity requests per second.
func realScenario(d time.Duration, capacity float64, noisyCost int64) scenario {
	s := defaultScenario(d, noisyCost)
	s.Slots = runtime.GOMAXPROCS(0)
	s.Unit = time.Duration(float64(s.Slots) / capacity * float64(time.Second)) // capacity() = Slots/Unit
	return s
}

func runReal(cfg realConfig) (*realResult, error) {
	cfg = cfg.withDefaults()
	if err := cfg.check(); err != nil {
		return nil, err
	}
	t, err := newRealTier(cfg)
	if err != nil {
		return nil, err
	}
	cores := cfg.Cores
	res := &realResult{cfg: cfg, limitMin: math.MaxInt, nominal: cfg.Target * cores / cfg.Work.Seconds()}
	res.c2c[0] = roundTrip()
	ctl := startControl(t)
	defer ctl.stop()

	// Warm-up and calibration: the mix offered at the nominal capacity (the
	// work alone) while aimd ramps up from its initial limit. Over the second
	// half, the process CPU per admitted request measures what a request really
	// costs here: the work plus the harness (goroutine, context, timer, sleep),
	// the shedder, the shed requests' share and the garbage collector.
	s := realScenario(cfg.Warmup, res.nominal, 1)
	reqs, _ := s.arrivals()
	res.warm = newPhaseStats(s.Normal + s.Noisy)
	// The measured run follows the warm-up's last arrival without a pause, on
	// arrivals drawn now at the nominal capacity and rescaled to the
	// calibrated one: drawing them after the warm-up took a quarter of a
	// second, and waiting for the warm-up's last requests up to a tenth more,
	// during which the process's CPU fell and aimd raised its limit by
	// 16-24%; the measured run then started above its steady limit, ran the
	// CPU at 100% and the scheduler's latency up to 167 ms for a few
	// periods, and its normal tenants' rejections came from there
	// (HISTORY.md, "Twenty-ninth session").
	ms := realScenario(cfg.Duration, res.nominal, cfg.NoisyCost)
	runReqs, _ := ms.arrivals()
	// The calibration after the run (Recal) draws its arrivals now too, so
	// that it follows the measured run without an idle gap.
	var recal scenario
	var recalReqs []request
	if cfg.Recal > 0 {
		recal = realScenario(cfg.Recal, res.nominal, 1)
		recalReqs, _ = recal.arrivals()
	}
	var waitWarm func()
	res.cpuPerReq, waitWarm = t.calibration(res.warm, reqs, cfg.Warmup, cfg.Work)
	res.capacity = cfg.Target * cores / res.cpuPerReq.Seconds()
	runReqs = rescale(runReqs, res.nominal/res.capacity, cfg.Duration)
	err = measuredRun(cfg, t, ctl, res, ms, runReqs)
	waitWarm() // the warm-up's last requests finished early in the measured run
	if err != nil {
		return nil, err
	}
	if cfg.Recal > 0 {
		var wait func()
		res.cpuPerReqAfter, wait = t.calibration(newPhaseStats(recal.Normal+recal.Noisy), recalReqs, cfg.Recal, cfg.Work)
		wait()
	}
	res.c2c[1] = roundTrip()
	return res, nil
}

// calibration offers reqs, a phase of length d, and returns once the last
// has arrived: the process CPU per request admitted over the phase's second
// half (at least work), and a func that waits for its last requests.
func (t *realTier) calibration(ps *phaseStats, reqs []request, d, work time.Duration) (time.Duration, func()) {
	var cpu0, adm0 atomic.Int64
	half := time.AfterFunc(d/2, func() {
		c, _ := processCPU()
		adm0.Store(ps.admitted[0].Load() + ps.admitted[1].Load())
		cpu0.Store(int64(c))
	})
	wait := t.launch(ps, reqs, time.Now())
	half.Stop()
	cpu1, _ := processCPU()
	adm := ps.admitted[0].Load() + ps.admitted[1].Load() - adm0.Load()
	perReq := work
	if c0 := time.Duration(cpu0.Load()); adm > 0 && c0 > 0 {
		perReq = max(work, (cpu1-c0)/time.Duration(adm))
	}
	return perReq, wait
}

// measuredRun offers reqs, the mix of s at the calibrated capacity for
// cfg.Duration, with the profiles and the burst the configuration asks for,
// and fills in res.
func measuredRun(cfg realConfig, t *realTier, ctl *control, res *realResult, s scenario, reqs []request) error {
	res.run = newPhaseStats(s.Normal + s.Noisy)
	burstDone, err := measure(cfg, t, ctl, res, reqs)
	if err != nil {
		if burstDone != nil { // the run took place: its burst is waited for
			_ = burstDone()
		}
		return err
	}
	// A burst may outlast the run: waited for after the run's CPU, wall
	// time and profiles are taken, so that they do not cover the wait.
	if err := burstDone(); err != nil {
		return fmt.Errorf("burst: %w", err)
	}
	ctl.pause() // aimd keeps regulating for a calibration after the run (Recal)
	ctl.summarize(res)
	if cfg.Trace != nil {
		if err := writeTrace(cfg.Trace, res.periods); err != nil {
			return err
		}
	}
	res.sizes(reqs, s.Normal)
	return nil
}

// measure offers reqs from now, under the profiles and with the burst the
// configuration asks for, until the last request has finished, and fills in
// the run's process CPU, wall time, sheds on arrival and profile share. It
// returns a func that waits for the burst to end, and an error when a
// profile file cannot be created (before the run) or the mutex profile
// cannot be written (after it, with the burst's func).
func measure(cfg realConfig, t *realTier, ctl *control, res *realResult, reqs []request) (burstDone func() error, err error) {
	if cfg.Profile != "" { // the measured run only
		stop, err := startProfile(cfg.Profile, or(cfg.ProfileHz, defaultProfileHz))
		if err != nil {
			return nil, err
		}
		// res.procCPU, set before this runs, is the CPU the profile covers
		// (to within the few calls on each side).
		defer func() { res.machinery, res.machineryErr = stop(res.procCPU) }()
	}
	if cfg.MutexProfile != "" { // which lock goroutines waited on, when "mutex wait" is high
		// Created before the run, as the CPU profile: a path it cannot
		// write is refused, not found out (and dropped) after the run.
		f, cerr := os.Create(cfg.MutexProfile)
		if cerr != nil {
			return nil, cerr
		}
		runtime.SetMutexProfileFraction(1)
		defer func() {
			runtime.SetMutexProfileFraction(0)
			werr := pprof.Lookup("mutex").WriteTo(f, 0)
			if cerr := f.Close(); werr == nil {
				werr = cerr
			}
			if werr != nil && err == nil {
				err = fmt.Errorf("mutex profile %s: %w", cfg.MutexProfile, werr)
			}
		}()
	}
	procStart, _ := processCPU()
	onArrival := t.sh.Stats().ShedOnArrival
	begin := time.Now()
	ctl.measure(begin, cfg.Duration, res.run)
	burstDone = cfg.Burst.start()
	t.drive(res.run, reqs, begin)
	procEnd, _ := processCPU()
	res.procCPU, res.wall = procEnd-procStart, time.Since(begin)
	res.onArrival = t.sh.Stats().ShedOnArrival - onArrival
	return burstDone, nil
}

// withDefaults is c with every zero field that has a default set to it.
func (c realConfig) withDefaults() realConfig {
	c.Work = or(c.Work, 200*time.Microsecond)
	c.Warmup = or(c.Warmup, 5*time.Second)
	c.Backend = or(c.Backend, 10*time.Millisecond)
	c.QueueDeadline = or(c.QueueDeadline, defaultQueueDeadline)
	if c.Target == 0 {
		c.Target = 0.9
	}
	c.NoisyCost = max(c.NoisyCost, 1)
	if c.Cores <= 0 {
		c.Cores = float64(runtime.GOMAXPROCS(0))
	}
	return c
}

// maxRealArrivalsPerCore bounds the requests the real mode draws before its
// warm-up (the warm-up's, the measured run's and the recalibration's, all at
// 135% of the nominal capacity) per core of its CPU budget: the default run
// draws about 150,000 per core, a 60 s measured run about 360,000.
const maxRealArrivalsPerCore = 2_500_000

// check refuses a configuration whose nominal capacity, Target x Cores /
// Work, is not a positive finite rate: the arrivals drawn at it never pass
// the phase's end (a negative or NaN rate steps the clock backwards), and the
// generator appended requests until memory ran out. It refuses one whose
// rate, over the phases' lengths, draws more than maxRealArrivalsPerCore
// requests per core of the budget, and a budget of more cores than
// GOMAXPROCS, whose target the process cannot reach: -target 90 (a
// percentage for the fraction 0.9), -work 1ns or -cores 1000 drew tens of
// millions to billions of them up front, each later a goroutine, and ran
// out of memory before the warm-up began.
func (c realConfig) check() error {
	if c.Work < 0 {
		return fmt.Errorf("real mode: Work %v is negative", c.Work)
	}
	if math.IsNaN(c.Cores) || math.IsInf(c.Cores, 0) {
		return fmt.Errorf("real mode: Cores %v is not a finite number", c.Cores)
	}
	// aimd refuses such a Target, in the MaxOf that SchedTarget makes too,
	// but the nominal capacity is drawn from it before.
	if c.Target < 0 || math.IsNaN(c.Target) || math.IsInf(c.Target, 0) {
		return fmt.Errorf("real mode: Target %v is not a finite non-negative number", c.Target)
	}
	for _, f := range []struct {
		name string
		d    time.Duration
	}{{"Warmup", c.Warmup}, {"Recal", c.Recal}, {"Backend", c.Backend}, {"QueueDeadline", c.QueueDeadline}, {"SchedTarget", c.SchedTarget}} {
		// each was read as "none" or passed on as is, without a word
		if f.d < 0 {
			return fmt.Errorf("real mode: %s %v is negative", f.name, f.d)
		}
	}
	if c.ProfileHz < 0 {
		return fmt.Errorf("real mode: ProfileHz %d is negative", c.ProfileHz)
	}
	if c.NoisyCost < 0 {
		return fmt.Errorf("real mode: NoisyCost %d is negative", c.NoisyCost)
	}
	// The burst is due At into the measured run; one due at or after its
	// end was never started (the run stopped its timer), and the report
	// still printed it as injected.
	if b := c.Burst; b.For > 0 && b.At >= c.Duration {
		return fmt.Errorf("real mode: a burst %v into the measured run never runs: the run lasts %v", b.At, c.Duration)
	}
	d := c.withDefaults()
	// A noisy request burns NoisyCost x Work of CPU once admitted, and the
	// measured run ends when its last request has: a cost whose work
	// outlasts the client's deadline serves nothing in time and, large
	// enough, keeps the run going for hours (or overflows to no work).
	if deadline := defaultScenario(0, 1).Deadline; d.NoisyCost > int64(deadline/d.Work) {
		return fmt.Errorf("real mode: a noisy request of cost %d burns %d x %v, more than the client's deadline of %v",
			d.NoisyCost, d.NoisyCost, d.Work, deadline)
	}
	if procs := runtime.GOMAXPROCS(0); d.Cores > float64(procs) {
		return fmt.Errorf("real mode: a CPU budget of %v cores is more than the process can use (GOMAXPROCS %d)", d.Cores, procs)
	}
	nominal := d.Target * d.Cores / d.Work.Seconds()
	// realScenario serves one unit of cost in GOMAXPROCS / nominal seconds:
	// past the longest Duration (-cores 1e-15, -target 1e-20) it converted to
	// a negative unit, the arrival rates came out negative, and the arrivals
	// stepped the clock backwards until memory ran out.
	if unit := float64(runtime.GOMAXPROCS(0)) / nominal; unit*float64(time.Second) >= math.MaxInt64 {
		return fmt.Errorf("real mode: a nominal capacity of %g requests/s (target %v x %v cores / %v of work) is too low to draw arrivals at",
			nominal, d.Target, d.Cores, d.Work)
	}
	span := max(d.Warmup, 0) + max(d.Duration, 0) + max(d.Recal, 0)
	if n := 1.35 * nominal * span.Seconds(); n > maxRealArrivalsPerCore*d.Cores {
		return fmt.Errorf("real mode: a nominal capacity of %.0f requests/s (target %v x %v cores / %v of work) over %v draws about %.0f arrivals, at most %d per core",
			nominal, d.Target, d.Cores, d.Work, span, n, maxRealArrivalsPerCore)
	}
	return nil
}

func or[T time.Duration | int](d, def T) T {
	if d == 0 {
		return def
	}
	return d
}

// sizes records how many requests each normal tenant offered in the measured
// run, for all of them and for those with a rejection: whether rejections hit
// the largest normal tenants or any.
func (r *realResult) sizes(reqs []request, normal int) {
	n := make([]int, normal)
	for _, q := range reqs {
		if !q.noisy {
			n[q.tenant]++
		}
	}
	for i, c := range n {
		r.normalSizes = append(r.normalSizes, c)
		if r.run.rejected[i].Load() {
			r.rejectedSizes = append(r.rejectedSizes, c)
		}
	}
	slices.Sort(r.normalSizes)
	slices.Sort(r.rejectedSizes)
}

func median(v []int) int {
	if len(v) == 0 {
		return 0
	}
	return v[len(v)/2]
}
