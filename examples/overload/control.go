package main

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/tierkit/tierkit/aimd"
)

// The real mode's control loop (startControl): an aimd step and a shed Kick
// per period, and what it records of the measured run (the CPU, the limit
// and each period's trace), summarized into the realResult.

// control is the control loop: one aimd step per period, then a Kick to wake
// shed waiters, recording the CPU and the limit once the measured run begins.
type control struct {
	t      *realTier
	cancel context.CancelFunc
	done   chan struct{}
	once   sync.Once

	mu       sync.Mutex
	begin    time.Time // zero during the warm-up
	end      time.Time // begin + the measured run's length: its last arrival
	prevTick time.Time // the tick before: the start of the period a tick closes
	loads    []float64 // per period wholly inside the measured run
	limits   []int
	secCPU   []time.Duration // process CPU at each whole second of the measured run
	secAt    []time.Time     // when each of secCPU was read
	nextSec  time.Time
	stats    *phaseStats // of the measured run
	probe    *probe
	periods  []period
}

func startControl(t *realTier) *control {
	ctx, cancel := context.WithCancel(context.Background())
	c := &control{t: t, cancel: cancel, done: make(chan struct{})}
	go c.loop(ctx)
	return c
}

func (c *control) loop(ctx context.Context) {
	defer close(c.done)
	tk := time.NewTicker(aimd.DefaultPeriod)
	defer tk.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tk.C:
			// The tick's own time may be stale when this goroutine ran late;
			// the CPU signal needs the time it actually samples at.
			now := time.Now()
			_ = c.t.lim.Tick(now)
			c.t.sh.Kick()
			v, _ := c.t.lastLoad.Load().(float64)
			c.mu.Lock()
			prev := c.prevTick
			c.prevTick = now
			// The reading covers the period since the tick before (aimd is
			// stepped by this loop alone): only a period wholly inside the
			// measured run counts, not the one across its start, part
			// warm-up, nor those of the drain after its last arrival.
			if c.inRun(prev, now) && !math.IsNaN(v) {
				c.loads = append(c.loads, v)
				c.limits = append(c.limits, c.t.lim.Limit())
				c.record(now, v)
				if !now.Before(c.nextSec) {
					cpu, _ := processCPU()
					c.secCPU, c.secAt = append(c.secCPU, cpu), append(c.secAt, now)
					c.nextSec = c.nextSec.Add(time.Second)
				}
			}
			c.mu.Unlock()
		}
	}
}

// inRun reports whether the period from prev to now lies wholly inside the
// measured run (it is being measured, and the period starts at or after
// its beginning and ends by its last arrival). c.mu is held.
func (c *control) inRun(prev, now time.Time) bool {
	return !c.begin.IsZero() && !prev.Before(c.begin) && !now.After(c.end)
}

// measure starts recording, from begin, the requests of ps, which arrive
// for d.
func (c *control) measure(begin time.Time, d time.Duration, ps *phaseStats) {
	cpu, _ := processCPU()
	c.mu.Lock()
	c.begin, c.end, c.nextSec = begin, begin.Add(d), begin.Add(time.Second)
	c.secCPU, c.secAt = []time.Duration{cpu}, []time.Time{begin}
	c.stats = ps
	c.probe = newProbe().read(ps, c.t.sh.Stats())
	c.mu.Unlock()
}

// record appends the period that ended at now, with the signal's reading v.
func (c *control) record(now time.Time, v float64) {
	st := c.t.sh.Stats()
	n := c.probe.read(c.stats, st)
	p := period{at: now.Sub(c.begin), load: v, limit: c.t.lim.Limit(), inflight: st.InFlight,
		queued: st.Queued, level: st.ShareLevel}
	// The first period's counters run from the start, where measure read
	// them, to the first tick of a period wholly inside the run: 100-200 ms.
	wall := p.at
	if len(c.periods) > 0 {
		wall = p.at - c.periods[len(c.periods)-1].at
	}
	c.probe.delta(n, &p, wall)
	c.probe = n
	c.periods = append(c.periods, p)
}

// pause stops recording; the loop keeps stepping aimd.
func (c *control) pause() {
	c.mu.Lock()
	c.begin = time.Time{}
	c.mu.Unlock()
}

func (c *control) stop() {
	c.once.Do(func() {
		c.cancel()
		<-c.done
	})
}

// summarize computes the CPU and limit figures of the measured run.
func (c *control) summarize(r *realResult) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var sum, sq float64
	for i, v := range c.loads {
		sum += v
		sq += v * v
		if math.Abs(v-r.cfg.Target) <= 0.03 {
			r.within3++
		}
		r.limitMin, r.limitMax = min(r.limitMin, c.limits[i]), max(r.limitMax, c.limits[i])
	}
	if n := float64(len(c.loads)); n > 0 {
		r.cpuMean = sum / n
		r.cpuStd = math.Sqrt(max(0, sq/n-r.cpuMean*r.cpuMean))
		r.cpuSamples = len(c.loads)
	}
	r.periods = c.periods
	cores := r.cfg.Cores
	for i := 1; i < len(c.secCPU); i++ {
		// The ticks that close each second run up to a period late: each
		// window is measured over its own length (it was taken as one
		// second, which read the first one high by up to a tenth).
		u := (c.secCPU[i] - c.secCPU[i-1]).Seconds() / c.secAt[i].Sub(c.secAt[i-1]).Seconds() / cores
		r.secs++
		if math.Abs(u-r.cfg.Target) <= 0.03 {
			r.secWithin3++
		}
	}
}
