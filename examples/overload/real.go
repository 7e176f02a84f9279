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
	"sync"
	"sync/atomic"
	"time"

	"github.com/tierkit/tierkit/aimd"
	"github.com/tierkit/tierkit/shed"
)

// realConfig configures the real mode: real goroutines and a CPU-burning handler
// behind an aimd.Limiter (the shed capacity) and a shed.Shedder.
type realConfig struct {
	Duration time.Duration // bounded run
	Work     time.Duration // CPU per unit of cost (default 200µs)
	Backend  time.Duration // backend wait per request after the CPU work (default 5ms)
	Profile  string        // CPU profile file, for the shed/aimd share ("" for none)
	Target   float64       // CPU utilization aimd holds (default 0.9)
}

type realResult struct {
	cfg                  realConfig
	offered, admitted    [2]int64
	shed                 [2]int64
	inDeadline           [2]int64
	normalRejectedTenant int
	cpuMean, cpuStd      float64 // utilization samples after warm-up
	cpuSamples           int
	within3              int         // periods within the target +-3%
	why                  [2][5]int64 // shed by reason; [0] is the client's timeout
	limitMin, limitMax   int
	procCPU              time.Duration
	wall                 time.Duration
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

func runReal(cfg realConfig) (*realResult, error) {
	if cfg.Work == 0 {
		cfg.Work = 200 * time.Microsecond
	}
	if cfg.Target == 0 {
		cfg.Target = 0.9
	}
	if cfg.Backend == 0 {
		cfg.Backend = 5 * time.Millisecond
	}
	if cfg.Profile != "" {
		f, err := os.Create(cfg.Profile)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return nil, err
		}
		defer pprof.StopCPUProfile()
	}
	cpuSig := &aimd.ProcessCPU{}
	var lastLoad atomic.Value
	lim, err := aimd.New(aimd.Config{
		Signal: aimd.SignalFunc(func(now time.Time) (float64, error) {
			v, err := cpuSig.Sample(now)
			lastLoad.Store(v)
			return v, err
		}),
		Manual: true, Target: cfg.Target, Min: 1, Max: 256, Initial: 4, MemoryLimit: -1,
		Decrease: 0.9, Gain: 0.2, // gentle steps: the CPU signal of a shared machine is noisy
	})
	if err != nil {
		return nil, err
	}
	sh, err := shed.New(shed.Config{Capacity: lim, Priorities: 2, MaxQueue: 64,
		QueueDeadline: 50 * time.Millisecond, StandingDeadline: 10 * time.Millisecond})
	if err != nil {
		return nil, err
	}
	res := &realResult{cfg: cfg, limitMin: math.MaxInt}
	procStart, _ := cpuTime()

	// Capacity: GOMAXPROCS cores of cfg.Work per request.
	// The offered load is relative to the capacity the tier runs at: the CPU
	// aimd lets the process use, target x cores, over the work per request.
	s := defaultScenario(cfg.Duration, 1)
	s.Slots = runtime.GOMAXPROCS(0)
	s.Unit = time.Duration(float64(cfg.Work) / cfg.Target) // capacity() = cores x target / work
	reqs, _ := s.arrivals()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	// The control loop: one aimd step per period, then wake shed waiters.
	var cpuVals []float64
	var mu sync.Mutex
	wg.Go(func() {
		t := time.NewTicker(aimd.DefaultPeriod)
		defer t.Stop()
		start := time.Now()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				// The tick's own time may be stale when this goroutine ran late;
				// the CPU signal needs the time it actually samples at.
				now := time.Now()
				_ = lim.Tick(now)
				sh.Kick()
				v, _ := lastLoad.Load().(float64)
				mu.Lock()
				if now.Sub(start) > cfg.Duration/4 && !math.IsNaN(v) { // after warm-up
					cpuVals = append(cpuVals, v)
					res.limitMin = min(res.limitMin, lim.Limit())
					res.limitMax = max(res.limitMax, lim.Limit())
				}
				mu.Unlock()
			}
		}
	})
	rejected := make([]atomic.Bool, s.Normal+s.Noisy)
	begin := time.Now()
	var reqWG sync.WaitGroup
	for i := range reqs {
		r := reqs[i]
		if d := time.Until(begin.Add(r.arrive)); d > 200*time.Microsecond {
			time.Sleep(d) // pacing the open-loop generator
		}
		k := b2i(r.noisy)
		atomic.AddInt64(&res.offered[k], 1)
		reqWG.Go(func() {
			rctx, rcancel := context.WithTimeout(context.Background(), s.Deadline)
			defer rcancel()
			start := time.Now()
			release, err := sh.Acquire(rctx, r.name, r.prio, r.cost)
			if err != nil {
				if !errors.Is(err, shed.ErrShed) && !errors.Is(err, context.DeadlineExceeded) {
					panic(err)
				}
				atomic.AddInt64(&res.shed[k], 1)
				var se *shed.ShedError
				switch {
				case errors.As(err, &se):
					atomic.AddInt64(&res.why[k][se.Reason], 1)
				default: // the client's deadline passed while queued
					atomic.AddInt64(&res.why[k][0], 1)
				}
				rejected[r.tenant].Store(true)
				return
			}
			atomic.AddInt64(&res.admitted[k], 1)
			burn(time.Duration(r.cost) * cfg.Work)
			// The backend round trip: a gateway request mostly waits, so the
			// concurrency that saturates the CPU is large (about 50 here) and the
			// limit can be regulated in steps of about 2% of the CPU.
			time.Sleep(cfg.Backend)
			release()
			if time.Since(start) <= s.Deadline {
				atomic.AddInt64(&res.inDeadline[k], 1)
			}
		})
	}
	reqWG.Wait()
	cancel()
	wg.Wait()
	procEnd, _ := cpuTime()
	res.procCPU = procEnd - procStart
	res.wall = time.Since(begin)
	for i := range s.Normal {
		if rejected[i].Load() {
			res.normalRejectedTenant++
		}
	}
	var sum, sq float64
	for _, v := range cpuVals {
		sum += v
		sq += v * v
		if math.Abs(v-cfg.Target) <= 0.03 {
			res.within3++
		}
	}
	if n := float64(len(cpuVals)); n > 0 {
		res.cpuMean = sum / n
		res.cpuStd = math.Sqrt(max(0, sq/n-res.cpuMean*res.cpuMean))
		res.cpuSamples = len(cpuVals)
	}
	return res, nil
}

func cpuTime() (time.Duration, error) { return processCPU() }

func (r *realResult) print(w io.Writer) {
	fmt.Fprintf(w, "\nreal mode: %v, %d cores, %v CPU + %v backend wait per request, aimd target %.0f%%, 1,350 tenants at 135%% of the capacity at the target\n",
		r.cfg.Duration, runtime.GOMAXPROCS(0), r.cfg.Work, r.cfg.Backend, 100*r.cfg.Target)
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Fprintf(w, "  machine load average at the end (other processes included): %s", b)
	}
	fmt.Fprintf(w, "  process CPU utilization after warm-up: mean %.1f%% sd %.1f%%, %d of %d periods within %.0f%% +-3%%\n",
		100*r.cpuMean, 100*r.cpuStd, r.within3, r.cpuSamples, 100*r.cfg.Target)
	fmt.Fprintf(w, "  process CPU over the run: %.2f cores of %d\n", r.procCPU.Seconds()/r.wall.Seconds(), runtime.GOMAXPROCS(0))
	fmt.Fprintf(w, "  aimd concurrency limit after warm-up: %d..%d\n", r.limitMin, r.limitMax)
	fmt.Fprintf(w, "  normal: offered %d admitted %d shed %d, in deadline %.2f%%, tenants with a rejection %d / 1344\n",
		r.offered[0], r.admitted[0], r.shed[0], pct(r.inDeadline[0], r.offered[0]), r.normalRejectedTenant)
	fmt.Fprintf(w, "  noisy:  offered %d admitted %d shed %d\n", r.offered[1], r.admitted[1], r.shed[1])
	for k, class := range []string{"normal", "noisy"} {
		fmt.Fprintf(w, "  %s shed by reason: bucket full %d, queue deadline %d, client timeout %d\n", class,
			r.why[k][shed.ReasonBucketFull], r.why[k][shed.ReasonQueueDeadline], r.why[k][0])
	}
	if r.cfg.Profile != "" {
		fmt.Fprintf(w, "  CPU profile in %s; shed+aimd share: go tool pprof -top -focus 'tierkit/(shed|aimd)\\.' %s\n", r.cfg.Profile, r.cfg.Profile)
	}
}
