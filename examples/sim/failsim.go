package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/tierkit/tierkit/failover"
)

// Failover simulation: 6 regions in 2 mega-regions, one run per minute. Each region's
// demand follows a diurnal curve (the two mega-regions 6 hours apart) with seeded
// bursts (40-79 minutes) that ramp up over 8 minutes and down over the last 10;
// region a2 loses 30% of its capacity for 4 hours.
// A region's mean CPU is what it serves over its capacity; each of its 60 hosts runs
// at that times a fixed residual imbalance (sd 4%) plus 1-point noise. A table
// computed from run t's loads carries run t+1's traffic.

type failParams struct {
	Runs    int     // minutes simulated
	Hosts   int     // hosts per region
	Clients int     // client ids per region for the Pick-based adherence checks
	Amp     float64 // diurnal amplitude
	Bursts  int     // bursts per day
}

type fregion struct {
	name, mega string
	cap, base  float64
	phase      float64 // diurnal phase, fraction of a day
	imb        []float64
}

type burst struct {
	region     int
	start, len int
	size       float64
}

type world struct {
	p       failParams
	regions []fregion
	bursts  []burst
	rng     *rand.Rand
	lossAt  int // run a2 loses 30% of capacity
	lossLen int
}

func newWorld(p failParams, seed uint64) *world {
	w := &world{p: p, rng: rand.New(rand.NewPCG(seed, 0xfa11)), lossAt: 9 * 60, lossLen: 4 * 60}
	caps := []float64{1200, 1000, 800, 1100, 900, 1000}
	for i, name := range []string{"a1", "a2", "a3", "b1", "b2", "b3"} {
		r := fregion{name: name, mega: []string{"east", "west"}[i/3], cap: caps[i], base: 0.52 * caps[i], phase: float64(i/3) * 0.25}
		for range p.Hosts {
			r.imb = append(r.imb, 1+0.04*w.rng.NormFloat64())
		}
		w.regions = append(w.regions, r)
	}
	days := (p.Runs + 1439) / 1440
	for d := range days * p.Bursts {
		w.bursts = append(w.bursts, burst{
			region: w.rng.IntN(6),
			start:  d*1440/p.Bursts + 120 + w.rng.IntN(1440/p.Bursts-200),
			len:    40 + w.rng.IntN(40),
			size:   0.25 + 0.2*w.rng.Float64(),
		})
	}
	return w
}

// demand of region i at run t.
func (w *world) demand(i, t int) float64 {
	r := w.regions[i]
	d := r.base * (1 + w.p.Amp*math.Sin(2*math.Pi*(float64(t)/1440-r.phase)))
	for _, b := range w.bursts {
		if b.region != i || t < b.start || t >= b.start+b.len {
			continue
		}
		x := float64(t - b.start)
		ramp := math.Min(1, math.Min(x/8, float64(b.start+b.len-t)/10))
		d *= 1 + b.size*ramp
	}
	return d
}

// capacity of region i at run t.
func (w *world) capacity(i, t int) float64 {
	c := w.regions[i].cap
	if i == 1 && t >= w.lossAt && t < w.lossAt+w.lossLen {
		c *= 0.7
	}
	return c
}

// hostCPU returns the hosts' CPU for a served mean utilization.
func (w *world) hostCPU(i int, util float64) []float64 {
	out := make([]float64, len(w.regions[i].imb))
	for h, m := range w.regions[i].imb {
		out[h] = math.Max(0, util*m+0.01*w.rng.NormFloat64())
	}
	return out
}

// route is one cross-region flow in a table: share of From's demand served by To.
type route struct {
	from, to int
	share    float64
}

// router builds the table for the next run from this run's observations.
type router interface {
	name() string
	step(t int, w *world, demand, capacity []float64, cpu [][]float64) []route
}

// tierkitRouter runs the real failover package.
type tierkitRouter struct {
	r    *failover.Router
	last failover.Table
}

func failConfig(knobRegion string, knob float64) failover.Config {
	cfg := failover.Config{Tier: "sim"}
	for _, name := range []string{"a1", "a2", "a3", "b1", "b2", "b3"} {
		reg := failover.Region{Name: name, Mega: map[byte]string{'a': "east", 'b': "west"}[name[0]],
			Knobs: failover.Knobs{Ring: 100, Mega: 100, Global: 100}}
		if name == "a2" {
			reg.Ring = []failover.Backup{{Region: "a1", Weight: 70}, {Region: "a3", Weight: 30}}
		}
		if name == knobRegion {
			reg.Knobs = failover.Knobs{Mega: knob}
		}
		cfg.Regions = append(cfg.Regions, reg)
	}
	return cfg
}

func newTierkitRouter(cfg failover.Config) *tierkitRouter {
	r, err := failover.New(cfg)
	if err != nil {
		panic(err)
	}
	return &tierkitRouter{r: r}
}

func (*tierkitRouter) name() string { return "tierkit" }
func (tr *tierkitRouter) step(t int, w *world, demand, capacity []float64, cpu [][]float64) []route {
	loads := make([]failover.Load, len(w.regions))
	for i, r := range w.regions {
		loads[i] = failover.Load{Region: r.name, Demand: demand[i], Capacity: capacity[i], HostCPU: cpu[i]}
	}
	tab, err := tr.r.Step(time.Unix(int64(t)*60, 0), loads)
	if err != nil {
		panic(err)
	}
	tr.last = tab
	idx := map[string]int{}
	for i, r := range w.regions {
		idx[r.name] = i
	}
	var out []route
	for _, rt := range tab.Routes {
		out = append(out, route{idx[rt.From], idx[rt.To], rt.Share})
	}
	return out
}

// healthRouter: Envoy-style priorities. Local hosts are priority 0, the rest of the
// mega-region priority 1. A host at or above 100% CPU fails health checks; priority
// 0 keeps min(1, 1.4 * healthy share) of the traffic (overprovisioning factor 1.4)
// and the rest goes to priority 1, spread by capacity. The model stops there: it
// neither checks priority 1's health nor has a priority 2 of other regions, which
// Envoy would spill to once priority 1 is degraded in turn.
type healthRouter struct{}

func (healthRouter) name() string { return "health-only (Envoy)" }
func (healthRouter) step(_ int, w *world, demand, capacity []float64, cpu [][]float64) []route {
	var out []route
	for i := range w.regions {
		healthy := 0
		for _, c := range cpu[i] {
			if c < 1 {
				healthy++
			}
		}
		keep := math.Min(1, 1.4*float64(healthy)/float64(len(cpu[i])))
		if keep >= 1 {
			continue
		}
		out = append(out, spreadTo(w, i, 1-keep, capacity, func(j int) bool { return w.regions[j].mega == w.regions[i].mega })...)
	}
	return out
}

// thresholdRouter: spill the excess above 80% mean CPU when the measured mean crosses
// 80%, to regions below 80%; recomputed every run, no trend, no hysteresis.
type thresholdRouter struct{}

func (*thresholdRouter) name() string { return "fixed-threshold 80%" }
func (tr *thresholdRouter) step(_ int, w *world, demand, capacity []float64, cpu [][]float64) []route {
	var out []route
	for i := range w.regions {
		mean := meanOf(cpu[i])
		home := demand[i] / capacity[i]
		if mean < 0.8 || home <= 0.8 {
			continue
		}
		out = append(out, spreadTo(w, i, 1-0.8/home, capacity, func(j int) bool {
			return j != i && meanOf(cpu[j]) < 0.8
		})...)
	}
	return out
}

// epochRouter: the ideal spill from mean demand over capacity, recomputed every
// epochLen runs (a slow, epoch-based table) and held in between. Epochs start at
// epochPhase past each half hour, not on it: a2's capacity loss starts and ends on
// the hour (09:00, 13:00), and an epoch starting on that very minute would see the
// loss at once, the best case of an epoch table (a 1 in 30 alignment) where a real
// one, whose phase nothing ties to the failure, reacts after half an epoch on
// average.
type epochRouter struct {
	held []route
}

const (
	epochLen   = 30
	epochPhase = epochLen / 2
)

func (*epochRouter) name() string { return "epoch table (30 min)" }
func (er *epochRouter) step(t int, w *world, demand, capacity []float64, _ [][]float64) []route {
	if t%epochLen != epochPhase {
		return er.held
	}
	er.held = nil
	for i := range w.regions {
		if home := demand[i] / capacity[i]; home > 0.75 {
			er.held = append(er.held, spreadTo(w, i, 1-0.75/home, capacity, func(j int) bool {
				return j != i && demand[j]/capacity[j] < 0.7
			})...)
		}
	}
	return er.held
}

// spreadTo splits share of region i's demand over the eligible regions by capacity.
func spreadTo(w *world, i int, share float64, capacity []float64, eligible func(int) bool) []route {
	total := 0.0
	for j := range w.regions {
		if j != i && eligible(j) {
			total += capacity[j]
		}
	}
	var out []route
	for j := range w.regions {
		if j != i && eligible(j) && total > 0 {
			out = append(out, route{i, j, share * capacity[j] / total})
		}
	}
	return out
}

func meanOf(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func (r route) String() string { return fmt.Sprintf("%d->%d %.3f", r.from, r.to, r.share) }
