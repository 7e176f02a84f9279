package main

import (
	"fmt"
	"math"

	"github.com/tierkit/tierkit/failover"
)

// failResult is what one failover run measured.
type failResult struct {
	ctl string
	// PeakCPU is the highest mean CPU of any region in any run.
	PeakCPU float64
	// Over90 counts region-minutes above 90% mean CPU while the tier as a whole had
	// at least 15% headroom; Over90All counts them all.
	Over90, Over90All int
	// MinLead is the smallest lead, in runs, between a region starting to spill and
	// its home demand (all served locally) crossing 90% of capacity; -1 when a region
	// was not spilling at a crossing, 0 when nothing crossed. Crossings counts the
	// crossings.
	MinLead, Crossings int
	// CrossIdle is the share of demand served cross-region in runs where no region's
	// home demand exceeds 75% of its capacity (nothing is wrong).
	CrossIdle float64
	// RecvPeak is the highest mean CPU of a region while it receives spill.
	RecvPeak float64
	// ReversalsPerHour counts, per simulated hour, reversals of a region's total spill
	// share: its direction of change flipping (rising then falling or back), ignoring
	// moves under half a point. A spill episode that rises and winds down is one;
	// a later episode of the same region adds two, since its rise reverses the
	// earlier wind-down (the direction is not forgotten while the share is 0).
	ReversalsPerHour float64
	// RouteChangesPerHour counts routes turned on or off per simulated hour.
	RouteChangesPerHour float64
	// RingA1 is the share of a2's spill to its ring that went to a1 (declared 70%),
	// over runs where a2 spilled; NaN if it never did.
	RingA1 float64
	// CPU is each region's mean CPU per run; Cross the cross-region share per run.
	CPU   [][]float64
	Cross []float64
}

// runFailover runs the world under one router.
func runFailover(p failParams, seed uint64, ctl router) failResult {
	w := newWorld(p, seed)
	ft := newFailTracker(ctl.name(), len(w.regions))
	var routes []route
	for t := range p.Runs {
		demand, capacity, served, cross := traffic(w, t, routes)
		cpu := make([][]float64, len(w.regions))
		for i := range w.regions {
			cpu[i] = w.hostCPU(i, served[i]/capacity[i])
		}
		ft.observe(t, routes, demand, capacity, served, cpu, cross)
		routes = ctl.step(t, w, demand, capacity, cpu)
		ft.routed(routes)
	}
	return ft.finish(p)
}

// traffic returns run t's demand, capacity and served load per region under routes,
// and the rate served cross-region.
func traffic(w *world, t int, routes []route) (demand, capacity, served []float64, cross float64) {
	n := len(w.regions)
	demand, capacity = make([]float64, n), make([]float64, n)
	for i := range w.regions {
		demand[i], capacity[i] = w.demand(i, t), w.capacity(i, t)
	}
	served = slices0(demand)
	for _, r := range routes {
		amt := r.share * demand[r.from]
		served[r.from] -= amt
		served[r.to] += amt
		cross += amt
	}
	return demand, capacity, served, cross
}

// failTracker accumulates a failResult run by run.
type failTracker struct {
	res                        failResult
	prev                       map[[2]int]bool
	spillStart                 []int
	prevHome, lastShare        []float64
	dir                        []int
	idleRuns, changes, reverse int
	ringA1, ringAll            float64
}

func newFailTracker(name string, n int) *failTracker {
	ft := &failTracker{
		res:        failResult{ctl: name, MinLead: math.MaxInt, CPU: make([][]float64, n), RingA1: math.NaN()},
		prev:       map[[2]int]bool{},
		spillStart: make([]int, n),
		prevHome:   make([]float64, n),
		lastShare:  make([]float64, n),
		dir:        make([]int, n),
	}
	for i := range ft.spillStart {
		ft.spillStart[i] = -1
	}
	return ft
}

// observe records run t under the routes in force.
func (ft *failTracker) observe(t int, routes []route, demand, capacity, served []float64, cpu [][]float64, cross float64) {
	res := &ft.res
	out := make([]bool, len(demand))
	for _, r := range routes {
		out[r.from] = true
	}
	var totD, totS, totC float64
	idle := true
	for i := range demand {
		totD, totS, totC = totD+demand[i], totS+served[i], totC+capacity[i]
		home := demand[i] / capacity[i]
		idle = idle && home <= 0.75
		switch {
		case out[i] && ft.spillStart[i] < 0:
			ft.spillStart[i] = t
		case !out[i]:
			ft.spillStart[i] = -1
		}
		if t > 0 && ft.prevHome[i] < 0.9 && home >= 0.9 {
			res.Crossings++
			lead := -1
			if ft.spillStart[i] >= 0 {
				lead = t - ft.spillStart[i]
			}
			res.MinLead = min(res.MinLead, lead)
		}
		ft.prevHome[i] = home
	}
	headroom := 1-totS/totC >= 0.15
	for i := range demand {
		m := meanOf(cpu[i])
		res.CPU[i] = append(res.CPU[i], m)
		res.PeakCPU = math.Max(res.PeakCPU, m)
		if m > 0.9 {
			res.Over90All++
			if headroom {
				res.Over90++
			}
		}
	}
	for _, r := range routes {
		res.RecvPeak = math.Max(res.RecvPeak, res.CPU[r.to][t])
		if r.from == 1 && (r.to == 0 || r.to == 2) {
			ft.ringAll += r.share
			if r.to == 0 {
				ft.ringA1 += r.share
			}
		}
	}
	res.Cross = append(res.Cross, cross/totD)
	if idle {
		res.CrossIdle += cross / totD
		ft.idleRuns++
	}
}

// routed records the table a router published: route on/off changes and reversals
// of each region's total spill share.
func (ft *failTracker) routed(routes []route) {
	outShare := make([]float64, len(ft.lastShare))
	now := map[[2]int]bool{}
	for _, r := range routes {
		outShare[r.from] += r.share
		k := [2]int{r.from, r.to}
		// a pair reached by two mechanisms (ring and mega) turns on once
		if !ft.prev[k] && !now[k] {
			ft.changes++
		}
		now[k] = true
	}
	for k := range ft.prev {
		if !now[k] {
			ft.changes++
		}
	}
	ft.prev = now
	for i := range outShare {
		d := outShare[i] - ft.lastShare[i]
		if math.Abs(d) < 0.005 {
			continue
		}
		nd := 1
		if d < 0 {
			nd = -1
		}
		if ft.dir[i] != 0 && nd != ft.dir[i] {
			ft.reverse++
		}
		ft.dir[i], ft.lastShare[i] = nd, outShare[i]
	}
}

func (ft *failTracker) finish(p failParams) failResult {
	res := ft.res
	if ft.idleRuns > 0 {
		res.CrossIdle /= float64(ft.idleRuns)
	}
	if res.MinLead == math.MaxInt {
		res.MinLead = 0
	}
	if ft.ringAll > 0 {
		res.RingA1 = ft.ringA1 / ft.ringAll
	}
	hours := float64(p.Runs) / 60
	res.ReversalsPerHour = float64(ft.reverse) / hours
	res.RouteChangesPerHour = float64(ft.changes) / hours
	return res
}

func slices0(xs []float64) []float64 { return append([]float64(nil), xs...) }

// failRouters returns fresh routers: tierkit and the three baselines.
func failRouters() []router {
	return []router{newTierkitRouter(failConfig("", 0)), healthRouter{}, &thresholdRouter{}, &epochRouter{}}
}

// knobResult measures knob adherence through the client path: region b2 has only
// the mega-region mechanism, at knob percent; over the runs where it wants to spill,
// the share of its clients that Table.Pick sends away, over the share it wants, should
// be the knob. It also measures the ring split through Pick in the main scenario.
type knobResult struct {
	Knob, Realized float64 // percent
	RingA1         float64 // percent of a2's ring clients picked to a1 (declared 70)
	Runs           int     // runs measured for the knob
	RingRuns       int     // runs of an uncapped ring spill (every 4th one scanned)
	RingCapped     int     // runs a ring backup was capped by its headroom (not measured)
}

func runKnob(p failParams, seed uint64, knob float64) knobResult {
	res := knobResult{Knob: knob}
	// Knob: b2 at `knob`% on the mega mechanism, with a burst forced on b2.
	w := newWorld(p, seed)
	w.bursts = append(w.bursts, burst{region: 4, start: 200, len: 120, size: 0.6})
	kr := newTierkitRouter(failConfig("b2", knob))
	var ratio float64
	clients := make([]string, p.Clients)
	for c := range clients {
		clients[c] = fmt.Sprint("client-", c)
	}
	simulate(p, w, kr, func(t int) {
		d := kr.last.Regions[4]
		if t%4 != 0 || d.Want < 0.02 || d.Unplaced > 0 { // every 4th run: the client scan is the cost
			return
		}
		away := 0
		for _, c := range clients {
			if kr.last.Pick("b2", c) != "b2" {
				away++
			}
		}
		ratio += float64(away) / float64(len(clients)) / d.Want
		res.Runs++
	})
	if res.Runs > 0 {
		res.Realized = 100 * ratio / float64(res.Runs)
	}
	// Ring: a2's clients in the main scenario, over the runs where neither ring
	// backup was capped by its headroom (the table's ring shares are exactly 70/30).
	w = newWorld(p, seed)
	tr := newTierkitRouter(failConfig("", 0))
	var a1, ring float64
	simulate(p, w, tr, func(t int) {
		var s1, s3 float64
		for _, rt := range tr.last.Out("a2") {
			if rt.Mechanism == failover.MechRing {
				if rt.To == "a1" {
					s1 += rt.Share
				} else {
					s3 += rt.Share
				}
			}
		}
		if s1+s3 == 0 || math.Abs(s1/(s1+s3)-0.7) > 1e-9 {
			if s1+s3 > 0 {
				res.RingCapped++
			}
			return
		}
		res.RingRuns++
		if t%4 != 0 { // the runs are counted every minute, the client scan every 4th
			return
		}
		for _, c := range clients {
			if rt, ok := tr.last.PickRoute("a2", c); ok && rt.Mechanism == failover.MechRing {
				ring++
				if rt.To == "a1" {
					a1++
				}
			}
		}
	})
	res.RingA1 = math.NaN()
	if ring > 0 {
		res.RingA1 = 100 * a1 / ring
	}
	return res
}

// simulate runs the world under r (fluid traffic model) and calls after each run.
func simulate(p failParams, w *world, r router, after func(t int)) {
	var routes []route
	for t := range p.Runs {
		demand, capacity, served, _ := traffic(w, t, routes)
		cpu := make([][]float64, len(w.regions))
		for i := range w.regions {
			cpu[i] = w.hostCPU(i, served[i]/capacity[i])
		}
		routes = r.step(t, w, demand, capacity, cpu)
		after(t)
	}
}

func defaultFail(runs int) failParams {
	return failParams{Runs: runs, Hosts: 60, Clients: 100000, Amp: 0.25, Bursts: 6}
}

func printFailover(wr interface{ Write([]byte) (int, error) }, rs []failResult, k knobResult) {
	fmt.Fprintf(wr, "%-22s %8s %8s %9s %8s %6s %9s %9s %8s %9s %8s\n",
		"router", "peakCPU", ">90%@hr", ">90%all", "minLead", "cross", "idleX%", "recvPeak", "rev/hr", "routeChg", "ringA1%")
	for _, r := range rs {
		fmt.Fprintf(wr, "%-22s %8.3f %8d %9d %8d %6d %9.3f %9.3f %8.2f %9.2f %8.1f\n",
			r.ctl, r.PeakCPU, r.Over90, r.Over90All, r.MinLead, r.Crossings, 100*r.CrossIdle, r.RecvPeak, r.ReversalsPerHour, r.RouteChangesPerHour, 100*r.RingA1)
	}
	fmt.Fprintf(wr, "knob: b2 mega knob %.0f%% -> realized %.2f%% of wanted spill via Table.Pick over %d runs (every 4th minute); ring a2 -> a1 %.2f%% of ring clients over every 4th of %d uncapped runs (declared 70%%; %d runs capped by headroom)\n",
		k.Knob, k.Realized, k.Runs, k.RingA1, k.RingRuns, k.RingCapped)
}
