package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/tierkit/tierkit/examples/controlplane"
)

var debugTicks = os.Getenv("CLUSTER_DEBUG") != ""

// regionTick is one plane tick as the region-overload scenario records it.
type regionTick struct {
	at              time.Duration // since the scenario started
	phase           string        // the overloaded region's phase
	home, projected float64       // its failover signal
	p90             float64       // the p90 CPU its hosts actually run at
	out             float64       // the published share of its demand sent away
	want            float64       // the router's wanted share (before receivers' room caps it)
	backupPhase     string
	backupHome      float64
	backupProjected float64
	backupP90       float64
	demand          [2]float64 // the plane's demand estimates (region, backup), in cores
	raw             string     // the backup's hosts' last raw utilization
	// missed counts the plane's ticks between the previous recorded one and
	// this one that the record does not hold: a poll answered late makes
	// the next tick follow at once, between two of the recorder's reads.
	missed uint64
}

// regionRecorder records the plane's ticks for one region and its backup.
type regionRecorder struct {
	c              *Cluster
	region, backup string
	start          time.Time
	last           uint64
	ticks          []regionTick
	// state reads the plane's state; nil means c.Plane.State (tests replay
	// a scripted sequence).
	state func() controlplane.State
}

// read returns the plane's state.
func (rr *regionRecorder) read() controlplane.State {
	if rr.state != nil {
		return rr.state()
	}
	return rr.c.Plane.State()
}

// sample records the plane's latest tick if it is new.
func (rr *regionRecorder) sample() {
	st := rr.read()
	if st.Tick == rr.last {
		return
	}
	t := regionTick{at: time.Since(rr.start)}
	if rr.last > 0 && st.Tick > rr.last+1 {
		t.missed = st.Tick - rr.last - 1
	}
	rr.last = st.Tick
	for _, h := range st.Hosts {
		if h.Region == rr.backup {
			t.raw += fmt.Sprintf(" %.2f/%.2f", h.RawCPU, h.Rate)
		}
	}
	for _, rs := range st.Regions {
		switch rs.Name {
		case rr.region:
			t.phase, t.home, t.projected, t.p90, t.out = rs.Phase, rs.Signal.Home, rs.Signal.Projected, rs.Signal.P, rs.Out
			t.demand[0], t.want = rs.Demand, rs.Want
		case rr.backup:
			t.backupPhase, t.backupHome, t.backupProjected, t.backupP90 = rs.Phase, rs.Signal.Home, rs.Signal.Projected, rs.Signal.P
			t.demand[1] = rs.Demand
		}
	}
	rr.ticks = append(rr.ticks, t)
}

// until samples every cadence/2 until cond holds or d passes. cond gets the
// latest recorded tick at every poll, so it sees a tick more than once (and
// first a tick recorded before the call): it must be a predicate on the
// tick, not a counter (meanHome counts the ticks recorded instead).
func (rr *regionRecorder) until(ctx context.Context, d time.Duration, cond func(regionTick) bool) error {
	return poll(ctx, d, rr.c.Spec.Cadence/2, func() (bool, error) {
		rr.sample()
		return len(rr.ticks) > 0 && cond(rr.ticks[len(rr.ticks)-1]), nil
	})
}

// calibrate finds the rates at which the scenario's signals sit where it is
// designed: both regions near 0.45 at the base rate, and the overloaded one
// near 1.12 at the peak, so that the backup has room below the failover's
// ReceiverMax (0.75) for the third of the demand that the spill moves. A
// gateway's signal is a fixed part (its own polling, control loops, the
// runtime) plus a part proportional to the rate; on a slower host, or under
// the race detector, the fixed part is larger and the spec's rate overshoots.
// So it measures both regions' mean home signal over 6 ticks at the spec's
// rate and at half of it, fits the line, and returns the base and peak rates
// as multiples of the spec's rate, with the two measurements. On a host that
// matches the spec (0.45 at its rate, no fixed part) they are 1 and
// peakSignal/baseSignal (2.49); a fixed part moves them further apart, never
// closer. It leaves both regions at the base rate, settled.
func (rr *regionRecorder) calibrate(ctx context.Context) (base, peak float64, at [2]float64, err error) {
	measure := func(m float64) (float64, error) {
		rr.c.Load.SetRegionRate(rr.region, m*rr.c.Spec.Rate)
		rr.c.Load.SetRegionRate(rr.backup, m*rr.c.Spec.Rate)
		// The signals average over about 5 ticks (Smoothing 0.2).
		if err := rr.until(ctx, 8*rr.c.Spec.Cadence, func(regionTick) bool { return false }); err != nil && ctx.Err() != nil {
			return 0, ctx.Err()
		}
		return rr.meanHome(ctx, 6)
	}
	if at[0], err = measure(1); err != nil {
		return 0, 0, at, fmt.Errorf("region-overload: calibrating the base load: %w", err)
	}
	if at[1], err = measure(0.5); err != nil {
		return 0, 0, at, fmt.Errorf("region-overload: calibrating the base load: %w", err)
	}
	slope := 2 * (at[0] - at[1]) // signal per spec rate
	fixed := at[0] - slope
	base, peak = 1, 2
	if slope > 0.05 {
		base = max((baseSignal-fixed)/slope, 0.25)
		peak = (peakSignal - fixed) / slope
	}
	if _, err := measure(base); err != nil && ctx.Err() != nil {
		return 0, 0, at, ctx.Err()
	}
	return base, peak, at, nil
}

// meanHome returns both regions' mean home signal over the next n plane
// ticks. It averages the ticks recorded in its window, each once: until
// hands its condition the latest tick on every poll (two a cadence), and
// its first poll the warm-up's last tick, so counting the condition's calls
// would average about 3 ticks, each twice, one of them the warm-up's.
func (rr *regionRecorder) meanHome(ctx context.Context, n int) (float64, error) {
	from := len(rr.ticks)
	err := rr.until(ctx, 30*rr.c.Spec.Cadence, func(regionTick) bool { return len(rr.ticks)-from >= n })
	var sum float64
	window := rr.ticks[from:]
	for _, t := range window {
		sum += (t.home + t.backupHome) / 2
	}
	return sum / float64(max(len(window), 1)), err
}

// baseSignal and peakSignal are the home signals region-overload calibrates
// its base and peak rates to (calibrate).
const baseSignal, peakSignal = 0.45, 1.12

// ramp moves the region's request rate from one multiple of the base rate to
// another in steps, one per cadence, recording ticks meanwhile.
func (rr *regionRecorder) ramp(ctx context.Context, from, to float64, steps int) error {
	for i := 1; i <= steps; i++ {
		m := from + (to-from)*float64(i)/float64(steps)
		rr.c.Load.SetRegionRate(rr.region, m*rr.c.Spec.Rate)
		if err := rr.until(ctx, rr.c.Spec.Cadence, func(regionTick) bool { return false }); err != nil && ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return nil
}

// regionHome reports whether the tick saw the region local, spilling nothing.
func regionHome(t regionTick) bool { return t.phase == "local" && t.out == 0 }

// calibrated runs calibrate, reports what it found, and returns the base and
// peak rates once the plane sees the region home. The calibration leaves the
// region at the base rate, but on a loaded host it may still be spilling
// from its last measurement: the failover counters read after it would then
// miss the spill's start and count only its end. The backup is not waited
// for: region-overload's checks judge it.
func (rr *regionRecorder) calibrated(ctx context.Context, r *Report) (base, peak float64, err error) {
	base, peak, cal, err := rr.calibrate(ctx)
	if err != nil {
		return 0, 0, err
	}
	r.figure("calibration: home signals %.2f at the spec's rate and %.2f at half of it; base %.2fx the spec's rate, peak %.2fx (designed: 1 and %.2f)",
		cal[0], cal[1], base, peak, peakSignal/baseSignal)
	if err := rr.until(ctx, 15*time.Second, regionHome); err != nil {
		return 0, 0, fmt.Errorf("region-overload: %s not back home after the calibration: %w", rr.region, err)
	}
	return base, peak, nil
}

// regionOverload raises the first region's demand (its clients' request rate)
// in steps until its failover signal says it would run its hosts above 90% on
// its own demand, holds it there, then lowers it back. Failover must spill
// part of its traffic to its backup region before the signal crosses 0.9, and
// after the demand falls, come back home once, with no reversal of the spill
// share on the way down (no flapping), the backup never spilling itself.
func regionOverload(ctx context.Context, c *Cluster, r *Report) error {
	// The region's home signal goes from about 0.45 at the base rate to about
	// 1.1 at the peak (calibrate finds both rates), and the backup (at about
	// 0.45) has room for the third of it that failover moves.
	region, backup := c.Spec.Regions[0], c.Spec.Regions[1]
	if err := c.Settle(ctx, 15*time.Second); err != nil {
		return err
	}
	defer c.Load.SetRegionRate(region, c.Spec.Rate)
	defer c.Load.SetRegionRate(backup, c.Spec.Rate)
	from := c.Load.Snapshot() // failures count from here, the calibration's included
	rr := &regionRecorder{c: c, region: region, backup: backup, start: time.Now()}
	base, peak, err := rr.calibrated(ctx, r)
	if err != nil {
		return err
	}
	rr.ticks, rr.start = nil, time.Now()
	counted := rr.read().Stats // the plane's failover counters from here on
	before := c.Load.Snapshot()
	if err := rr.ramp(ctx, base, peak, 14); err != nil {
		return err
	}
	// Hold the peak until the signal crossed 0.9 and the spill has had time to act.
	crossed := func(t regionTick) bool { return t.home >= 0.9 }
	err = rr.until(ctx, 10*time.Second, crossed)
	r.check(err == nil, "the home signal of %s reaches 0.9 at %.1fx its base demand", region, peak/base)
	if err := rr.until(ctx, 2*time.Second, func(regionTick) bool { return false }); err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	atPeak := c.Load.Snapshot().Sub(before)
	falls := len(rr.ticks) // the ticks from here on are the return
	if err := rr.ramp(ctx, peak, base, 6); err != nil {
		return err
	}
	err = rr.until(ctx, 25*time.Second, regionHome)
	r.check(err == nil, "%s comes back home (local, no spill) within 25 s after its demand falls", region)
	counted = statsSince(counted, rr.read().Stats)

	sm := rr.summarize(falls)
	at := func(i int) string {
		if i < 0 {
			return "never"
		}
		return fmt.Sprintf("%.1f s (home %.2f)", rr.ticks[i].at.Seconds(), rr.ticks[i].home)
	}
	r.figure("%d plane ticks recorded; %s's home signal peaked at %.2f, the p90 CPU its hosts actually ran at at %.2f",
		len(rr.ticks), region, sm.maxHome, sm.maxP90)
	r.figure("spill started at %s; the home signal crossed 0.9 at %s; back home at %s", at(sm.spillAt), at(sm.crossAt), at(sm.backAt))
	var spilled, sent uint64
	for addr, n := range atPeak.Hosts[region] {
		if c.RegionOf(addr) == backup {
			spilled += n
		}
		if c.RegionOf(addr) != "" {
			sent += n
		}
	}
	r.figure("published spill share peaked at %.2f; %.1f%% of %s's gateway requests were served in %s up to the end of the peak",
		sm.maxOut, 100*share(spilled, sent), region, backup)
	r.figure("the backup %s was itself spilling (so it could not receive) in %d of the ticks", backup, sm.backupSpilled)
	r.check(sm.backupSpilled == 0, "the backup %s never spills itself, so it can receive (it spilled in %d of %d ticks)", backup, sm.backupSpilled, len(rr.ticks))
	r.check(sm.spillAt >= 0, "%s spills to %s", region, backup)
	r.check(sm.spillAt >= 0 && (sm.crossAt < 0 || sm.spillAt < sm.crossAt), "the spill starts before the home signal crosses 0.9")
	r.check(spilled > 0, "requests of %s's clients are served in %s", region, backup)
	r.figure("while its home signal was >= 0.9, %s sent traffic to %s in %d of %d ticks", region, backup, sm.hotSpilling, sm.hotTicks)
	r.check(sm.hotTicks > 0 && float64(sm.hotSpilling) >= 0.7*float64(sm.hotTicks),
		"while the home signal is >= 0.9 the spill is on (in >= 70%% of those ticks; got %d of %d)", sm.hotSpilling, sm.hotTicks)
	judgeFlapping(r, backup, counted, sm, len(rr.ticks))
	whole := c.Load.Snapshot().Sub(from)
	r.check(whole.All().Failed == 0, "no request fails, from the calibration on (got %d; last error %v)", whole.All().Failed, firstErr(whole))
	return nil
}

// judgeFlapping checks that the region spilled once, with no flapping. The
// spill episodes and the route's changes are the plane's failover counters
// over the ramp (counted, a difference), exact over every plane tick (they
// count every region's: the backup spilling back would count too, and
// fails its own check); the
// reversals of the wanted share (which no counter holds) compare the ticks
// recorded one to the next. The record reads the plane's state twice a
// cadence, and a poll answered late makes the next tick follow at once: the
// ticks it missed are a figure.
func judgeFlapping(r *Report, backup string, counted controlplane.Stats, sm regionSummary, recorded int) {
	r.figure("route changes: the plane counted %d spill start(s), %d end(s) and %d route(s) turned on or off (every tick's); the published share changed %d times (the backup's room caps it each tick); on the way back home the wanted share reversed %d times",
		counted.SpillStarts, counted.SpillEnds, counted.RouteChanges, sm.changes, sm.reversals)
	r.figure("the record missed %d of the %d plane ticks between its first and its last (a late poll makes the next tick follow at once); the reversals of the wanted share are read on the ticks recorded",
		sm.missed, uint64(recorded)+sm.missed)
	r.check(counted.SpillStarts == 1, "one spill episode, no flapping between local and spilling (the plane counted %d spill starts, every region's)", counted.SpillStarts)
	r.check(counted.RouteChanges == 2, "the route to %s turns on once and off once (the plane counted %d routes turned on or off, every region's)", backup, counted.RouteChanges)
	r.check(sm.reversals == 0, "on the way back home the wanted spill share never rises again once it started falling (got %d reversals in the ticks recorded)", sm.reversals)
}

// statsSince returns the failover counters of now less those of then.
func statsSince(then, now controlplane.Stats) controlplane.Stats {
	return controlplane.Stats{SpillStarts: now.SpillStarts - then.SpillStarts,
		SpillEnds: now.SpillEnds - then.SpillEnds, RouteChanges: now.RouteChanges - then.RouteChanges}
}

// regionSummary is what the region-overload scenario reads from its record.
type regionSummary struct {
	spillAt, crossAt, backAt int // tick indexes (-1: never): first spill, first home >= 0.9, first tick back without spill
	maxOut, maxP90, maxHome  float64
	changes                  int    // changes of the published spill share
	reversals                int    // rises of the wanted share after it started falling, from tick falls on
	backupSpilled            int    // ticks the backup was spilling itself
	missed                   uint64 // plane ticks between the first and the last recorded that the record lacks
	hotTicks, hotSpilling    int    // ticks with home >= 0.9, and those with the spill on
}

// summarize reads the record; the ticks from index falls on are the return.
func (rr *regionRecorder) summarize(falls int) regionSummary {
	sm := regionSummary{spillAt: -1, crossAt: -1, backAt: -1}
	falling := false
	for i, t := range rr.ticks {
		if sm.spillAt < 0 && t.out > 0 {
			sm.spillAt = i
		}
		if sm.crossAt < 0 && t.home >= 0.9 {
			sm.crossAt = i
		}
		if sm.spillAt >= 0 && sm.backAt < 0 && i > sm.spillAt && t.out == 0 {
			sm.backAt = i
		}
		sm.maxOut, sm.maxP90, sm.maxHome = max(sm.maxOut, t.out), max(sm.maxP90, t.p90), max(sm.maxHome, t.home)
		if t.backupPhase == "spilling" {
			sm.backupSpilled++
		}
		if t.home >= 0.9 {
			sm.hotTicks++
			if t.out > 0 {
				sm.hotSpilling++
			}
		}
		if debugTicks {
			fmt.Printf("%6.2fs %-8s home %.2f proj %.2f p90 %.2f out %.2f want %.2f d %.3f | backup %-8s home %.2f proj %.2f p90 %.2f d %.3f raw%s\n", t.at.Seconds(), t.phase, t.home, t.projected, t.p90, t.out, t.want, t.demand[0],
				t.backupPhase, t.backupHome, t.backupProjected, t.backupP90, t.demand[1], t.raw)
		}
		if i == 0 {
			continue
		}
		sm.missed += t.missed
		p := rr.ticks[i-1]
		if t.out != p.out {
			sm.changes++
		}
		if i >= falls && t.want != p.want { // on the way back home
			if t.want < p.want {
				falling = true
			} else if falling {
				sm.reversals++
			}
		}
	}
	return sm
}
