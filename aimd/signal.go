package aimd

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"time"
)

// Signal is a load measurement the control loop holds at [Config.Target]. Sample
// is called once per control step with the step's time; it returns the load over
// the period since the previous call (for a CPU signal, a utilization where 1 is
// all the CPU the process may use). It returns NaN when it has no information yet
// (the first call of a rate signal), which leaves the limit unchanged; an error
// also leaves the limit unchanged (but for a [MaxOf]'s partial reading above
// the target) and is counted in [Stats].SignalErrors.
type Signal interface {
	Sample(now time.Time) (float64, error)
}

// SignalFunc adapts a function to [Signal].
type SignalFunc func(now time.Time) (float64, error)

// Sample returns f(now).
func (f SignalFunc) Sample(now time.Time) (float64, error) { return f(now) }

// ProcessCPU is the CPU utilization of this process: CPU time used (user and
// system, from getrusage) over wall time x GOMAXPROCS. The wall time is taken
// from the now passed to Sample, so pass the time of the call itself (not, say,
// a ticker's stale tick time): a gap between the two skews one period up and
// the next down. Since Go 1.25 GOMAXPROCS
// follows a cgroup CPU quota (of the process's own cgroup, not its
// ancestors'), rounded up to a whole CPU and to at least 2 on a machine of 2
// or more: under a quota of half a CPU it is 2, and ProcessCPU reads at most
// 0.25, below any usual Target; [CgroupCPU] reads the quota exactly, as does
// Cores set to it. The zero value is ready to use; it is safe for concurrent use.
//
// Set Cores to measure against a CPU budget instead: a process that shares its
// machine with others cannot count on all of GOMAXPROCS, and a target
// relative to cores it never gets holds nothing (the reading stays low, so the
// limit climbs to Max while the work already queues for the CPU). With Cores 1
// the reading is 1 when the process uses one full core.
//
// On a platform without getrusage (not unix) Sample returns an error wrapping
// errors.ErrUnsupported: use another signal there, such as [Latency].
type ProcessCPU struct {
	// Cores is the CPU budget, in cores, that a reading of 1 stands for. Zero
	// means GOMAXPROCS, and so does a negative, NaN or infinite value: it is
	// read at every Sample, not checked when the Limiter is built.
	Cores float64

	mu        sync.Mutex // protects the fields below
	lastCPU   time.Duration
	lastWall  time.Time
	lastCores float64
}

// Sample returns the utilization since the previous call, or NaN on the first
// and when the cores measured against changed since the previous call
// (GOMAXPROCS, which the runtime moves with a container's quota): as with
// [CgroupCPU], when in the period it changed is unknown.
//
// A call whose now is before the previous call's (it took its time, then
// lost the race for the lock to a newer sample) reads NaN and leaves the
// newer reading in place: stored last, its older time would be paired with
// the newer CPU time and skew the next period. So does a call at the same
// time as the previous one: it covers no time, and its reading would drop
// the CPU time used since the previous one from the next period.
func (p *ProcessCPU) Sample(now time.Time) (float64, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.lastCores != 0 && !now.After(p.lastWall) {
		return math.NaN(), nil
	}
	// Read under the lock: overlapping samples store their readings in the
	// order they were taken.
	cpu, err := readCPUTime()
	if err != nil {
		return math.NaN(), err
	}
	cores := p.Cores
	if cores <= 0 || math.IsNaN(cores) || math.IsInf(cores, 0) {
		cores = float64(runtime.GOMAXPROCS(0))
	}
	prevCPU, prevWall, prevCores := p.lastCPU, p.lastWall, p.lastCores
	p.lastCPU, p.lastWall, p.lastCores = cpu, now, cores
	if cores != prevCores { // also the first sample: prevCores is 0, cores positive
		return math.NaN(), nil
	}
	return utilization(cpu-prevCPU, now.Sub(prevWall), cores), nil
}

// readCPUTime is processCPUTime, swapped by tests for a counter they set.
var readCPUTime = processCPUTime

// errNoProcessCPU is processCPUTime's error on a platform without getrusage:
// no Sample will ever read, so it says errors.ErrUnsupported.
var errNoProcessCPU = fmt.Errorf("aimd: process CPU time not available on this platform: %w", errors.ErrUnsupported)

// utilization is used/(wall x cores), NaN without elapsed time, or when the
// usage counter went backwards (a cgroup recreated when its container
// restarted): that period's usage is unknown, and 0 would read as an idle
// period and open the limit by the whole headroom. The callers tell a first
// sample by its cores (0 before it), not by a zero time: an explicit clock
// may start there.
func utilization(used, wall time.Duration, cores float64) float64 {
	if wall <= 0 || cores <= 0 || used < 0 {
		return math.NaN()
	}
	return max(0, used.Seconds()/(wall.Seconds()*cores))
}

// Latency is a latency signal: callers record the latency of completed work with
// [Latency.Observe], and Sample returns the mean over the period in seconds (so
// [Config.Target] is the latency to hold, in seconds). A period without
// observations returns NaN. The zero value is ready to use and safe for concurrent
// use.
type Latency struct {
	// mu keeps each observation's sum and count in the same window: two
	// atomics swapped one after the other split an Observe between them.
	mu sync.Mutex
	// sum is in nanoseconds, a float64: an int64 wraps past some 292 years
	// (time.Since of a start never set saturates there), and the mean of
	// the period would read negative ("no reading") or small.
	sum   float64
	count int64
}

// Observe records one latency. A negative one (work timed by wall-clock
// stamps across a step of the clock back) is no latency and is ignored: it
// would pull the mean down, or below zero, which reads as "no reading".
func (l *Latency) Observe(d time.Duration) {
	if d < 0 {
		return
	}
	l.mu.Lock()
	l.sum += float64(d)
	l.count++
	l.mu.Unlock()
}

// Sample returns the mean latency in seconds since the previous call and resets
// the window.
func (l *Latency) Sample(time.Time) (float64, error) {
	l.mu.Lock()
	n, s := l.count, l.sum
	l.count, l.sum = 0, 0
	l.mu.Unlock()
	if n == 0 {
		return math.NaN(), nil
	}
	return s / float64(n) / float64(time.Second), nil
}
