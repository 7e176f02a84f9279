package main

import (
	"container/heap"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"time"

	"github.com/tierkit/tierkit/aimd"
	"github.com/tierkit/tierkit/shed"
)

// loopConfig configures the closed-loop model of the real mode: the real
// aimd.Limiter (stepped with Tick on virtual time) and the real shed.Scheduler
// in front of a modeled CPU, with the real mode's tenant mix, so that what the
// real mode shows on an idle machine can be reproduced, explained and tested
// deterministically on a loaded one.
//
// The CPU is Cores servers taking jobs first come first served (Go's run
// queue, roughly): a request arrives as a job of Overhead (the goroutine, its
// context and Acquire), is queued or admitted by the shedder, then runs its
// Work as a job, waits Backend off the CPU, and releases in a job of Release,
// which dispatches the next requests in drain order; a shed request costs
// ShedCPU more. Every GCEvery a job of GCWork occupies one core (a dedicated
// mark worker). The signal is the CPU the jobs used in the period over the
// budget, plus Gaussian noise of sd Noise (what the real signal shows beyond
// what the model accounts for).
type loopConfig struct {
	Seed              uint64
	Warmup, Duration  time.Duration
	Cores             int
	Work, Backend     time.Duration
	Overhead, Release time.Duration
	ShedCPU           time.Duration
	GCEvery, GCWork   time.Duration
	Noise             float64
	Aimd              aimd.Config   // Signal, Manual and MemoryLimit are set by the model
	Shed              shed.Config   // Capacity is unused: the model dispatches itself
	StallAt, StallFor time.Duration // optional: every core stops for StallFor from StallAt (after warm-up)
	HogAt, HogFor     time.Duration // optional: another process takes one core for HogFor from HogAt (after warm-up)
	Period            time.Duration
	ClientDeadline    time.Duration
}

// loopResult is what one closed-loop run measured after its warm-up.
type loopResult struct {
	Capacity       float64 // requests per second at the target
	Periods        int
	Within3        int // periods whose signal was within the target +-3 points
	CPUMean, CPUSd float64
	LimitMin       int
	LimitMax       int
	Offered        [2]int64
	Admitted       [2]int64
	InDeadline     [2]int64
	ShedBy         [2][3]int64 // client timeout, bucket full, queue deadline
	NormalRejected int
	Loads          []float64
	Trace          []loopPeriod // per period of the measured run
}

// loopPeriod is one control period of the model's measured run.
type loopPeriod struct {
	Load       float64
	Limit      int
	InFlight   int64
	Queued     int
	NormalShed int64 // normal requests shed in the period
}

// defaultLoop is the real mode's configuration (10 ms backend wait, 200 µs of
// work, aimd as the real mode sets it) with the overheads measured there.
func defaultLoop(d time.Duration) loopConfig {
	return loopConfig{
		Seed: 1, Warmup: 5 * time.Second, Duration: d, Cores: 2,
		Work: 200 * time.Microsecond, Backend: 10 * time.Millisecond,
		Overhead: 12 * time.Microsecond, Release: 4 * time.Microsecond, ShedCPU: 4 * time.Microsecond,
		GCEvery: 2500 * time.Millisecond, GCWork: 20 * time.Millisecond,
		Noise: 0.02, Period: aimd.DefaultPeriod, ClientDeadline: 100 * time.Millisecond,
		Aimd: realAimd(0.9),
		Shed: realShed(defaultQueueDeadline),
	}
}

// loop event kinds.
const (
	evArrive = iota // a request's goroutine becomes runnable
	evJobDone
	evBackendDone
	evTick
	evSweep
	evStall
	evHog
)

// job kinds.
const (
	jobArrive = iota
	jobWork
	jobRelease
	jobShed
	jobGC
)

type loopEvent struct {
	at   int64
	seq  int64
	kind int
	arg  int32 // request index, or core index for evJobDone
}

type loopEvents []loopEvent

func (e loopEvents) Len() int { return len(e) }
func (e loopEvents) Less(i, j int) bool {
	if e[i].at != e[j].at {
		return e[i].at < e[j].at
	}
	return e[i].seq < e[j].seq
}
func (e loopEvents) Swap(i, j int) { e[i], e[j] = e[j], e[i] }
func (e *loopEvents) Push(x any)   { *e = append(*e, x.(loopEvent)) }
func (e *loopEvents) Pop() any {
	old := *e
	x := old[len(old)-1]
	*e = old[:len(old)-1]
	return x
}

type loopJob struct {
	kind int
	req  int32
	dur  int64
}

// loopModel is one closed-loop run.
type loopModel struct {
	cfg      loopConfig
	rng      *rand.Rand
	now      int64
	seq      int64
	events   loopEvents
	runq     []loopJob // FIFO
	runHead  int
	cores    []loopJob // running job per core
	busyCore []bool
	busy     int64 // CPU nanoseconds used in the current period
	stalled  bool
	hogged   bool // core 0 is taken by another process (HogFor): no job starts on it
	lim      *aimd.Limiter
	sched    *shed.Scheduler[int32]
	inflight int64
	reqs     []request
	measured int64 // virtual time the measured phase starts
	res      loopResult
	rejected []bool
	expired  func(int32)
	lastShed int64
}

var loopEpoch = time.Unix(1_000_000, 0)

// runLoop runs the closed-loop model and returns what it measured.
func runLoop(cfg loopConfig) (loopResult, error) {
	m := &loopModel{cfg: cfg, rng: rand.New(rand.NewPCG(cfg.Seed, 0x100b))}
	ac := cfg.Aimd
	ac.Manual, ac.MemoryLimit = true, -1
	ac.Signal = aimd.SignalFunc(m.sample)
	var err error
	if m.lim, err = aimd.New(ac); err != nil {
		return loopResult{}, err
	}
	if m.sched, err = shed.NewScheduler[int32](cfg.Shed); err != nil {
		return loopResult{}, err
	}
	m.cores, m.busyCore = make([]loopJob, cfg.Cores), make([]bool, cfg.Cores)
	m.expired = m.onExpired
	// The capacity at the target, from the CPU each request costs: its work
	// and overheads, the share of shed requests (0.35 of the capacity), and the
	// garbage collector.
	perReq := float64(cfg.Work+cfg.Overhead+cfg.Release) + 0.35*float64(cfg.Overhead+cfg.ShedCPU)
	gc := 0.0
	if cfg.GCEvery > 0 {
		gc = float64(cfg.GCWork) / float64(cfg.GCEvery)
	}
	m.res.Capacity = (cfg.Target()*float64(cfg.Cores) - gc) / perReq * float64(time.Second)
	// The mix at that capacity on the model's cores: realScenario's unit of
	// service is for GOMAXPROCS slots, so it is taken again for Cores, or the
	// load offered would depend on the machine the model runs on.
	s := realScenario(cfg.Warmup+cfg.Duration, m.res.Capacity, 1)
	s.Slots = cfg.Cores
	s.Unit = time.Duration(float64(s.Slots) / m.res.Capacity * float64(time.Second))
	s.Seed = cfg.Seed
	m.reqs, _ = s.arrivals()
	m.rejected = make([]bool, s.Normal+s.Noisy)
	m.measured = int64(cfg.Warmup)
	m.res.LimitMin = math.MaxInt
	for i := range m.reqs {
		m.schedule(int64(m.reqs[i].arrive), evArrive, int32(i))
	}
	end := int64(cfg.Warmup + cfg.Duration)
	m.schedule(int64(cfg.Period), evTick, 0)
	m.schedule(int64(time.Millisecond), evSweep, 0)
	if cfg.GCEvery > 0 {
		for t := int64(cfg.GCEvery); t < end; t += int64(cfg.GCEvery) {
			m.schedule(t, evStall, -1)
		}
	}
	if cfg.StallFor > 0 {
		m.schedule(m.measured+int64(cfg.StallAt), evStall, 0)
	}
	if cfg.HogFor > 0 {
		m.schedule(m.measured+int64(cfg.HogAt), evHog, 0)
	}
	for len(m.events) > 0 {
		e := heap.Pop(&m.events).(loopEvent)
		m.advance(e.at)
		m.handle(e, end)
	}
	m.finish(s.Normal)
	return m.res, nil
}

// Target returns the aimd target (default 0.9).
func (c loopConfig) Target() float64 {
	if c.Aimd.Target == 0 {
		return aimd.DefaultTarget
	}
	return c.Aimd.Target
}

func (m *loopModel) schedule(at int64, kind int, arg int32) {
	m.seq++
	heap.Push(&m.events, loopEvent{at: at, seq: m.seq, kind: kind, arg: arg})
}

// advance moves the clock to at, accounting the CPU the running jobs use.
func (m *loopModel) advance(at int64) {
	if !m.stalled {
		n := int64(0)
		for _, b := range m.busyCore {
			if b {
				n++
			}
		}
		m.busy += n * (at - m.now)
	}
	m.now = at
}

func (m *loopModel) handle(e loopEvent, end int64) {
	switch e.kind {
	case evArrive:
		m.run(loopJob{kind: jobArrive, req: e.arg, dur: int64(m.cfg.Overhead)})
	case evJobDone:
		m.jobDone(int(e.arg))
	case evBackendDone:
		m.run(loopJob{kind: jobRelease, req: e.arg, dur: int64(m.cfg.Release)})
	case evTick:
		m.tick()
		if m.now < end+int64(time.Second) {
			m.schedule(m.now+int64(m.cfg.Period), evTick, 0)
		}
	case evSweep:
		if m.sched.Queued() > 0 {
			m.sched.Expire(m.t(), m.expired)
		}
		if m.now < end+int64(time.Second) {
			m.schedule(m.now+int64(time.Millisecond), evSweep, 0)
		}
	case evStall:
		if e.arg < 0 { // a GC cycle's dedicated worker
			m.run(loopJob{kind: jobGC, dur: int64(m.cfg.GCWork)})
			return
		}
		if !m.stalled {
			m.stalled = true
			m.schedule(m.now+int64(m.cfg.StallFor), evStall, 0)
			return
		}
		m.stalled = false
		m.startJobs()
	case evHog:
		// The other process's CPU is not this process's: it is not counted
		// in the signal, only the core is gone. A job already running on
		// core 0 finishes first (jobs are a few hundred µs at most).
		m.hogged = !m.hogged
		if m.hogged {
			m.schedule(m.now+int64(m.cfg.HogFor), evHog, 0)
		} else {
			m.startJobs()
		}
	}
}

func (m *loopModel) t() time.Time { return loopEpoch.Add(time.Duration(m.now)) }

// run queues a job for the CPU.
func (m *loopModel) run(j loopJob) {
	m.runq = append(m.runq, j)
	m.startJobs()
}

// startJobs puts queued jobs on idle cores.
func (m *loopModel) startJobs() {
	if m.stalled {
		return
	}
	for c := range m.cores {
		if m.runHead == len(m.runq) {
			m.runq, m.runHead = m.runq[:0], 0
			return
		}
		if m.busyCore[c] || (c == 0 && m.hogged) {
			continue
		}
		j := m.runq[m.runHead]
		m.runHead++
		m.cores[c], m.busyCore[c] = j, true
		m.schedule(m.now+j.dur, evJobDone, int32(c))
	}
}

func (m *loopModel) jobDone(c int) {
	if m.stalled { // the stall delays the job by its length
		m.schedule(m.now+int64(m.cfg.StallFor), evJobDone, int32(c))
		return
	}
	j := m.cores[c]
	m.busyCore[c] = false
	switch j.kind {
	case jobArrive:
		m.arrive(j.req)
	case jobWork:
		m.schedule(m.now+int64(m.cfg.Backend), evBackendDone, j.req)
	case jobRelease:
		m.inflight -= m.reqs[j.req].cost
		m.done(j.req)
		m.dispatch()
	}
	m.startJobs()
}

// arrive is Acquire: the fast path, or the bucket.
func (m *loopModel) arrive(i int32) {
	r := &m.reqs[i]
	m.count(r, func(p *loopResult, k int) { p.Offered[k]++ })
	limit := int64(max(m.lim.Limit(), 1))
	if m.sched.Queued() == 0 && (m.inflight == 0 || m.inflight+r.cost <= limit) {
		m.sched.Admit(m.t(), r.name, r.prio, r.cost)
		m.admit(i)
		return
	}
	if _, _, err := m.sched.Push(m.t(), r.name, r.prio, r.cost, i); err != nil {
		m.shed(i, 1)
		return
	}
	m.dispatch()
}

// dispatch admits queued requests that fit, in drain order.
func (m *loopModel) dispatch() {
	limit := int64(max(m.lim.Limit(), 1))
	for m.sched.Queued() > 0 {
		avail := limit - m.inflight
		if m.inflight == 0 {
			avail = math.MaxInt64
		}
		if avail <= 0 {
			return
		}
		i, _, ok := m.sched.Pop(m.t(), avail, m.expired)
		if !ok {
			return
		}
		m.admit(i)
	}
}

func (m *loopModel) admit(i int32) {
	r := &m.reqs[i]
	m.inflight += r.cost
	m.count(r, func(p *loopResult, k int) { p.Admitted[k]++ })
	m.run(loopJob{kind: jobWork, req: i, dur: int64(m.cfg.Work) * r.cost})
}

func (m *loopModel) onExpired(i int32) { m.shed(i, 2) }

// shed accounts a rejection (1 bucket full, 2 queue deadline); the woken
// goroutine costs ShedCPU.
func (m *loopModel) shed(i int32, why int) {
	r := &m.reqs[i]
	if int64(r.arrive) >= m.measured {
		m.rejected[r.tenant] = true
	}
	m.count(r, func(p *loopResult, k int) { p.ShedBy[k][why]++ })
	m.run(loopJob{kind: jobShed, req: i, dur: int64(m.cfg.ShedCPU)})
}

func (m *loopModel) done(i int32) {
	r := &m.reqs[i]
	if m.now-int64(r.arrive) <= int64(m.cfg.ClientDeadline) {
		m.count(r, func(p *loopResult, k int) { p.InDeadline[k]++ })
	}
}

// count applies f to the result when r arrived in the measured phase.
func (m *loopModel) count(r *request, f func(*loopResult, int)) {
	if int64(r.arrive) >= m.measured && int64(r.arrive) < m.measured+int64(m.cfg.Duration) {
		f(&m.res, b2i(r.noisy))
	}
}

// sample is the signal: the CPU used in the period over the budget, plus noise.
func (m *loopModel) sample(time.Time) (float64, error) {
	u := float64(m.busy)/(float64(m.cfg.Cores)*float64(m.cfg.Period)) + m.cfg.Noise*m.rng.NormFloat64()
	m.busy = 0
	return max(0, u), nil
}

func (m *loopModel) tick() {
	_ = m.lim.Tick(m.t())
	m.dispatch()
	if m.now <= m.measured || m.now > m.measured+int64(m.cfg.Duration) {
		return
	}
	load := m.lim.Stats().Load
	m.res.Loads = append(m.res.Loads, load)
	shed := m.res.ShedBy[0][1] + m.res.ShedBy[0][2]
	m.res.Trace = append(m.res.Trace, loopPeriod{Load: load, Limit: m.lim.Limit(), InFlight: m.inflight,
		Queued: m.sched.Queued(), NormalShed: shed - m.lastShed})
	m.lastShed = shed
	l := m.lim.Limit()
	m.res.LimitMin, m.res.LimitMax = min(m.res.LimitMin, l), max(m.res.LimitMax, l)
}

func (m *loopModel) finish(normal int) {
	var sum, sq float64
	target := m.cfg.Target()
	for _, v := range m.res.Loads {
		sum += v
		sq += v * v
		if math.Abs(v-target) <= 0.03 {
			m.res.Within3++
		}
	}
	if n := float64(len(m.res.Loads)); n > 0 {
		m.res.Periods = len(m.res.Loads)
		m.res.CPUMean = sum / n
		m.res.CPUSd = math.Sqrt(max(0, sq/n-m.res.CPUMean*m.res.CPUMean))
	}
	for i := range normal {
		if m.rejected[i] {
			m.res.NormalRejected++
		}
	}
}

// loopTable runs the closed-loop model (20 s measured after 5 s of warm-up)
// under each disturbance with the former and the current configuration, and
// prints one line per run: the table of HISTORY.md.
func loopTable(w io.Writer, seed uint64) error {
	type dist struct {
		name string
		f    func(*loopConfig)
	}
	dists := []dist{
		{"signal noise 2 points", func(*loopConfig) {}},
		{"signal noise 3 points", func(c *loopConfig) { c.Noise = 0.03 }},
		{"40 ms stall", func(c *loopConfig) { c.StallAt, c.StallFor = 3*time.Second, 40*time.Millisecond }},
		{"60 ms stall", func(c *loopConfig) { c.StallAt, c.StallFor = 3*time.Second, 60*time.Millisecond }},
		{"GC 60 ms every 2.5 s", func(c *loopConfig) { c.GCWork = 60 * time.Millisecond }},
		{"GC 100 ms every 2.5 s", func(c *loopConfig) { c.GCWork = 100 * time.Millisecond }},
		{"GC 150 ms every 2.5 s", func(c *loopConfig) { c.GCWork = 150 * time.Millisecond }},
		{"1 core taken 300 ms", func(c *loopConfig) { c.HogAt, c.HogFor = 3*time.Second, 300*time.Millisecond }},
		{"1 core taken 1 s", func(c *loopConfig) { c.HogAt, c.HogFor = 3*time.Second, time.Second }},
	}
	cur := func() loopConfig { return defaultLoop(20 * time.Second) }
	former := func() loopConfig { return formerLoop(20 * time.Second) }
	confs := []struct {
		name string
		c    func() loopConfig
	}{
		{"former", former},
		{"former + proportional aimd", func() loopConfig {
			c := former()
			c.Aimd = cur().Aimd
			return c
		}},
		{"former + arrival order", func() loopConfig {
			c := former()
			c.Shed.FreshArrivalOrder = true
			return c
		}},
		{"former + 80 ms queue deadline", func() loopConfig {
			c := former()
			c.Shed.QueueDeadline = 80 * time.Millisecond
			return c
		}},
		{"current", cur},
	}
	fmt.Fprintf(w, "\nclosed-loop model of the real mode (explicit time, 2 cores, 20 s measured after 5 s, seed %d):\n", seed)
	for _, d := range dists {
		for _, k := range confs {
			c := k.c()
			c.Seed = seed
			d.f(&c)
			r, err := runLoop(c)
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "  %-22s %-30s periods within 90%% +-3: %3d/%d  limit %3d..%3d  normal tenants rejected %3d  normal in deadline %.3f%%\n",
				d.name, k.name, r.Within3, r.Periods, r.LimitMin, r.LimitMax, r.NormalRejected, pct(r.InDeadline[0], r.Offered[0]))
		}
	}
	return nil
}

// formerLoop is the closed-loop model with the real mode's former
// configuration: the full-correction AIMD loop (Increase 1, Gain 0.2,
// Decrease 0.9), tenants under their share in round robin, 50 ms queue
// deadline, and no shedding on arrival (it came later, and the ablation's
// columns show the three changes before it).
func formerLoop(d time.Duration) loopConfig {
	c := defaultLoop(d)
	c.Aimd = aimd.Config{Target: 0.9, Min: 1, Max: 256, Initial: 4, Decrease: 0.9, Gain: 0.2}
	c.Shed.FreshArrivalOrder, c.Shed.ShedOnArrival = false, false
	c.Shed.QueueDeadline = 50 * time.Millisecond
	return c
}
