package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/tierkit/tierkit/internal/corelat"
	"github.com/tierkit/tierkit/shed"
)

// roundTrip is the time a cache line takes to reach the other core and come
// back, or 0 where it cannot be measured. The hosts this runs on move between
// two or more such times within minutes (about 200 ns and about 1,000 ns on
// one), and every access the shedder makes to a line another core wrote
// last costs it: the run's shed + aimd share is read with it.
func roundTrip() time.Duration {
	d, ok := corelat.RoundTrip(5, 4000)
	if !ok {
		return 0
	}
	return d
}

func (r *realResult) print(w io.Writer) {
	cores := runtime.GOMAXPROCS(0)
	r.printSetup(w, cores)
	fmt.Fprintf(w, "  calibration: %v of process CPU per admitted request (work %v); capacity at the target %.0f req/s (work alone: %.0f)\n",
		r.cpuPerReq.Round(time.Microsecond), r.cfg.Work, r.capacity, r.nominal)
	if r.cpuPerReqAfter > 0 {
		fmt.Fprintf(w, "  calibration after the measured run (-recal): %v of process CPU per admitted request (%+.1f%%)\n",
			r.cpuPerReqAfter.Round(time.Microsecond), 100*(r.cpuPerReqAfter.Seconds()/r.cpuPerReq.Seconds()-1))
	}
	fmt.Fprintf(w, "  offered: 1,344 normal tenants at 75%% + 6 noisy at 10%% each of %.0f req/s, noisy requests cost %d (%.0f%% of the capacity, a request of cost c counted as c x work + the calibration's overhead)\n",
		r.capacity, r.cfg.NoisyCost, 75+60*r.requestUnits(r.cfg.NoisyCost))
	fmt.Fprintf(w, "  process CPU over the budget: mean %.1f%% sd %.1f%%; within %.0f%% +-3: %d of %d periods of 100ms (%.1f%%), %d of %d seconds\n",
		100*r.cpuMean, 100*r.cpuStd, 100*r.cfg.Target, r.within3, r.cpuSamples, pct(int64(r.within3), int64(r.cpuSamples)), r.secWithin3, r.secs)
	fmt.Fprintf(w, "  process CPU over the measured run: %.2f cores of %d (budget %.2f)\n", r.procCPU.Seconds()/r.wall.Seconds(), cores, r.cfg.Cores)
	if r.cpuSamples > 0 {
		fmt.Fprintf(w, "  aimd concurrency limit: %d..%d\n", r.limitMin, r.limitMax)
	} else { // the range kept its starting bounds, MaxInt..0
		fmt.Fprintf(w, "  aimd concurrency limit: no period of 100ms wholly inside the measured run\n")
	}
	p := r.run
	fmt.Fprintf(w, "  normal: offered %d admitted %d shed %d, in deadline %.3f%%, tenants with a rejection %d / 1344\n",
		p.offered[0].Load(), p.admitted[0].Load(), p.shed[0].Load(), pct(p.inDeadline[0].Load(), p.offered[0].Load()), p.normalRejected(1344))
	fmt.Fprintf(w, "  noisy:  offered %d admitted %d shed %d\n", p.offered[1].Load(), p.admitted[1].Load(), p.shed[1].Load())
	for k, class := range []string{"normal", "noisy"} {
		fmt.Fprintf(w, "  %s requests shed by reason: bucket full %d, queue deadline %d, client timeout while queued %d\n", class,
			p.why[k][shed.ReasonBucketFull].Load(), p.why[k][shed.ReasonQueueDeadline].Load(), p.why[k][0].Load())
	}
	if r.cfg.AtDeadline {
		fmt.Fprintf(w, "  shed on arrival: off (-atdeadline), the floods' excess waits for its deadline\n")
	} else {
		fmt.Fprintf(w, "  requests shed on arrival, predicted to miss their deadline (counted in queue deadline above): %d\n", r.onArrival)
	}
	if len(r.rejectedSizes) > 0 {
		fmt.Fprintf(w, "  normal tenants with a rejection offered %d..%d requests (median %d); all normal tenants %d..%d (median %d)\n",
			r.rejectedSizes[0], r.rejectedSizes[len(r.rejectedSizes)-1], median(r.rejectedSizes),
			r.normalSizes[0], r.normalSizes[len(r.normalSizes)-1], median(r.normalSizes))
	}
	useful := r.usefulUnits()
	run := r.cfg.Duration.Seconds() // the arrivals' span; wall time adds the drain after the last one
	fmt.Fprintf(w, "  goodput: %.2f%% of the capacity at the target (work served within deadline, in calibrated requests, per second / %.0f)\n",
		ratio(100*useful, run*r.capacity), r.capacity)
	if r.cpuPerReqAfter > 0 {
		// The capacity the two calibrations give on average, for reading a
		// run in which the machine changed state; not the judged figure. The
		// work served is counted in the same calibration's unit.
		mean := (r.cpuPerReq + r.cpuPerReqAfter) / 2
		both := r.cfg.Target * r.cfg.Cores / mean.Seconds()
		fmt.Fprintf(w, "  goodput against the mean of the calibrations before and after the run: %.2f%% (/ %.0f)\n",
			ratio(100*r.usefulUnitsAt(mean), run*both), both)
	}
	fmt.Fprintf(w, "  warm-up (aimd ramping from a limit of 4, not counted above): normal tenants with a rejection %d / 1344, normal in deadline %.2f%%\n",
		r.warm.normalRejected(1344), pct(r.warm.inDeadline[0].Load(), r.warm.offered[0].Load()))
	explain(w, r.periods)
	if r.cfg.Profile != "" {
		if r.machineryErr != nil {
			fmt.Fprintf(w, "  CPU profile in %s: %v\n", r.cfg.Profile, r.machineryErr)
			return
		}
		fmt.Fprintf(w, "  shed+aimd share of the CPU: %.2f%% (%d of %d samples, asked at %d Hz; the same as go tool pprof %s '%s' %s)\n",
			r.machinery.percent(), r.machinery.hits, r.machinery.total, or(r.cfg.ProfileHz, defaultProfileHz),
			strings.Join(pprofFocusArgs[:len(pprofFocusArgs)-1], " "), pprofFocusArgs[len(pprofFocusArgs)-1], r.cfg.Profile)
	}
}

// printSetup prints the run's settings and the machine it ran on: the
// conditions the figures print gives next were measured under.
func (r *realResult) printSetup(w io.Writer, cores int) {
	fmt.Fprintf(w, "\nreal mode: %v warm-up + %v measured, GOMAXPROCS %d, CPU budget %.2f cores, %v CPU + %v backend wait per request, aimd target %.0f%% of the budget, queue deadline %v\n",
		r.cfg.Warmup, r.cfg.Duration, cores, r.cfg.Cores, r.cfg.Work, r.cfg.Backend, 100*r.cfg.Target, r.cfg.QueueDeadline)
	if r.cfg.SchedTarget > 0 {
		fmt.Fprintf(w, "  and the Go scheduler's 99th-percentile latency held below %v\n", r.cfg.SchedTarget)
	}
	if r.cfg.Recover {
		fmt.Fprintf(w, "  aimd fast recovery on\n")
	}
	if r.cfg.Nice != 0 {
		group := "no autogroups"
		if b, err := os.ReadFile("/proc/self/autogroup"); err == nil {
			group = "autogroup " + strings.TrimSpace(string(b))
		}
		fmt.Fprintf(w, "  run at scheduling niceness %d, %s (other processes, and the injected burst's in a session of its own, at their own: %d when this one started)\n", r.cfg.Nice, group, outsideNice)
	}
	if r.cfg.RT != 0 {
		fmt.Fprintf(w, "  run in the real-time round-robin policy at priority %d (the injected burst's processes in the normal one)\n", r.cfg.RT)
	}
	if b := r.cfg.Burst; b.For > 0 {
		fmt.Fprintf(w, "  injected outside burst: %d busy process(es) for %v, %v into the measured run\n", b.Procs, b.For, b.At)
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Fprintf(w, "  machine load average at the end (other processes included): %s", b)
	}
	if r.c2c[0] > 0 && r.c2c[1] > 0 {
		after := "the measured run"
		if r.cfg.Recal > 0 { // runReal reads it after the calibration that follows the run
			after += " and -recal's calibration"
		}
		fmt.Fprintf(w, "  core-to-core round trip (a cache line to the other core and back): %v before the warm-up, %v after %s\n", r.c2c[0], r.c2c[1], after)
	}
}

// usefulUnits is the work served within the deadline in calibrated requests:
// the calibration's unit is the process CPU of a cost-1 request, its work
// plus a fixed overhead per request (goroutine, context, shed, timers), so a
// request of cost c is (c x Work + overhead) / cpuPerReq of them, not c: it
// pays the overhead once. Counted as c, a cost-4 run's goodput read about a
// point high.
func (r *realResult) usefulUnits() float64 { return r.usefulUnitsAt(r.cpuPerReq) }

// requestUnits is a request of cost c in calibrated requests, as usefulUnits
// counts it: (c x Work + overhead) / cpuPerReq, where the overhead is paid
// once per request. A noisy request of cost 4 offers less than 4 of them, so
// the noisy tenants' share of the capacity is less than 4 x 60%.
func (r *realResult) requestUnits(c int64) float64 {
	per := r.cpuPerReq.Seconds()
	if per <= 0 {
		return float64(c)
	}
	work := r.cfg.Work.Seconds()
	return (float64(c)*work + max(per-work, 0)) / per
}

// usefulUnitsAt is usefulUnits in the unit of a calibration of cpuPerReq per
// request (its overhead is cpuPerReq less the work).
func (r *realResult) usefulUnitsAt(cpuPerReq time.Duration) float64 {
	per := cpuPerReq.Seconds()
	if per <= 0 {
		return 0
	}
	work := r.cfg.Work.Seconds()
	over := max(per-work, 0)
	p := r.run
	cost := float64(p.costInDeadline[0].Load() + p.costInDeadline[1].Load())
	n := float64(p.inDeadline[0].Load() + p.inDeadline[1].Load())
	return (cost*work + n*over) / per
}

// ratio is a / b, or 0 where b is not positive (a measured run of no length).
func ratio(a, b float64) float64 {
	if b <= 0 {
		return 0
	}
	return a / b
}
