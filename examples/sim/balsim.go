package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/tierkit/tierkit/balancer"
)

// Balancer simulation: a tier of heterogeneous hosts whose CPU follows their weight
// share, their cores and a hidden per-host efficiency the controllers never see.
//
//	cpu_i = demand * w_i/sum(w) / (cores_i * eff_i) + extra_i  (+ measurement noise)
//
// demand is set so a perfectly balanced tier runs at the target CPU.

// balScenario names one tier condition.
type balScenario struct {
	name  string
	truth balancer.State // the label the classifier should give after onset
	onset int            // run at which the condition starts (0: from the start)
	setup func(t *tier)  // initial condition
	shock func(t *tier)  // applied at onset when onset > 0
	churn bool           // replace 2% of hosts every 10 runs
}

// balScenarios are the six conditions of the issue.
var balScenarios = []balScenario{
	{name: "steady-drift", truth: balancer.SteadyDrift, setup: warm},
	{name: "task-churn", truth: balancer.TaskChurn, setup: warm, churn: true},
	{name: "flat-initial", truth: balancer.FlatInitial, setup: flat},
	{name: "bimodal", truth: balancer.BimodalLoad, setup: bimodal},
	{name: "hot-outliers", truth: balancer.HotOutliers, onset: 10, setup: warm, shock: hotShock},
	{name: "regional-skew", truth: balancer.RegionalSkew, onset: 10, setup: warm, shock: regionShock},
}

// balParams sizes a balancer simulation.
type balParams struct {
	Hosts   int
	Runs    int
	Target  float64 // mean CPU of a balanced tier
	Noise   float64 // CPU measurement noise, standard deviation in CPU fraction
	Drift   float64 // per-run log-normal drift of efficiency
	Regions int
}

type thost struct {
	id     string
	cores  float64
	eff    float64 // hidden efficiency
	extra  float64 // CPU not proportional to traffic (a hot outlier's co-tenant)
	region string
	w      float64
	fresh  bool // joined this run, no weight yet
	serial int
}

type tier struct {
	p      balParams
	rng    *rand.Rand
	hosts  []thost
	serial int
}

func newTier(p balParams, seed uint64) *tier {
	t := &tier{p: p, rng: rand.New(rand.NewPCG(seed, 0x5eed))}
	for range p.Hosts {
		t.hosts = append(t.hosts, t.newHost())
	}
	return t
}

func (t *tier) newHost() thost {
	t.serial++
	return thost{
		id:     fmt.Sprintf("h%04d", t.serial),
		cores:  float64(26 + t.rng.IntN(101)), // 26..126 cores
		eff:    0.85 + 0.3*t.rng.Float64(),
		region: fmt.Sprintf("r%d", t.rng.IntN(t.p.Regions)),
		serial: t.serial,
	}
}

// warm: weights already balanced for the hidden efficiency (a tier that has run the
// balancer for a long time).
func warm(t *tier) {
	for i := range t.hosts {
		t.hosts[i].w = t.hosts[i].cores * t.hosts[i].eff / 76
	}
}

// flat: every weight 1 (a fresh tier, or weights lost).
func flat(t *tier) {
	for i := range t.hosts {
		t.hosts[i].w = 1
	}
}

// bimodal: two hardware generations, 0.75 and 1.15 efficiency; capacity weights.
func bimodal(t *tier) {
	for i := range t.hosts {
		h := &t.hosts[i]
		h.eff = 0.95 + 0.1*t.rng.Float64()
		if t.rng.IntN(2) == 0 {
			h.eff *= 0.75
		} else {
			h.eff *= 1.15
		}
		h.w = h.cores / 76
	}
}

// hotShock: 3% of hosts get +25 CPU points of work their weight does not explain.
func hotShock(t *tier) {
	n := max(1, t.p.Hosts*3/100)
	for _, i := range t.rng.Perm(len(t.hosts))[:n] {
		t.hosts[i].extra = 0.25
	}
}

// regionShock: every host of region r0 loses 15% efficiency (a bad kernel, a noisy
// neighbour service deployed region-wide).
func regionShock(t *tier) {
	for i := range t.hosts {
		if t.hosts[i].region == "r0" {
			t.hosts[i].eff *= 0.85
		}
	}
}

// churn replaces 2% of the hosts with new ones (no weight yet).
func (t *tier) churn() {
	n := max(1, len(t.hosts)*2/100)
	for _, i := range t.rng.Perm(len(t.hosts))[:n] {
		h := t.newHost()
		h.fresh = true
		t.hosts[i] = h
	}
}

// drift moves every efficiency by a small log-normal step, clamped to [0.6, 1.3].
func (t *tier) drift() {
	for i := range t.hosts {
		h := &t.hosts[i]
		h.eff *= math.Exp(t.p.Drift * t.rng.NormFloat64())
		h.eff = math.Min(math.Max(h.eff, 0.6), 1.3)
	}
}

// cpu returns the true CPU of every host for the current weights.
func (t *tier) cpu() []float64 {
	var sumW, capEff float64
	for _, h := range t.hosts {
		sumW += h.w
		capEff += h.cores * h.eff
	}
	demand := t.p.Target * capEff
	out := make([]float64, len(t.hosts))
	for i, h := range t.hosts {
		out[i] = demand*h.w/sumW/(h.cores*h.eff) + h.extra
	}
	return out
}

// observe caps the true CPU at 100% and adds measurement noise after the cap,
// so a saturated host reads around 100%, a point or two above at times.
func (t *tier) observe(cpu []float64) []float64 {
	out := make([]float64, len(cpu))
	for i, c := range cpu {
		out[i] = math.Max(0.001, math.Min(c, 1)+t.p.Noise*t.rng.NormFloat64())
	}
	return out
}

// controller is one weighting policy under test.
type controller interface {
	name() string
	// step returns new weights for the observed CPU; the bool reports the class it
	// saw (only the tierkit balancer has one).
	step(run int, t *tier, obs []float64) ([]float64, balancer.State)
}

// tierkitCtl runs the real balancer.
type tierkitCtl struct{ b *balancer.Balancer }

func (c *tierkitCtl) name() string { return "tierkit" }
func (c *tierkitCtl) step(run int, t *tier, obs []float64) ([]float64, balancer.State) {
	hosts := make([]balancer.Host, len(t.hosts))
	for i, h := range t.hosts {
		hosts[i] = balancer.Host{ID: h.id, CPU: obs[i], Cores: h.cores, Weight: h.w, Region: h.region, New: h.fresh}
		if h.fresh {
			hosts[i].CPU, hosts[i].Weight = 0, 0
		}
	}
	res, err := c.b.Step(time.Unix(int64(run)*60, 0), hosts)
	if err != nil {
		panic(err)
	}
	w := make([]float64, len(hosts))
	for i, d := range res.Hosts {
		w[i] = d.New
	}
	return w, res.State
}

// staticCtl: weights proportional to cores, never changed.
type staticCtl struct{}

func (staticCtl) name() string { return "static-capacity" }
func (staticCtl) step(_ int, t *tier, _ []float64) ([]float64, balancer.State) {
	w := make([]float64, len(t.hosts))
	for i, h := range t.hosts {
		w[i] = h.cores / 76
	}
	return w, 0
}

// wrrCtl: weight = qps / utilization, recomputed every run for every host (gRPC
// weighted_round_robin, Envoy client-side WRR). New hosts get the mean weight.
type wrrCtl struct{}

func (wrrCtl) name() string { return "qps/util (WRR)" }
func (wrrCtl) step(_ int, t *tier, obs []float64) ([]float64, balancer.State) {
	var sumW float64
	for _, h := range t.hosts {
		sumW += h.w
	}
	w := make([]float64, len(t.hosts))
	var sum float64
	n := 0
	for i, h := range t.hosts {
		if h.fresh {
			continue
		}
		w[i] = (h.w / sumW) / obs[i] * float64(len(t.hosts))
		sum += w[i]
		n++
	}
	for i, h := range t.hosts {
		if h.fresh {
			w[i] = sum / float64(n)
		}
	}
	return w, 0
}

// propCtl: a plain proportional controller toward the mean CPU, every host every run,
// no deadband, throttle or recentering. New hosts get the mean weight.
type propCtl struct{}

func (propCtl) name() string { return "proportional" }
func (propCtl) step(_ int, t *tier, obs []float64) ([]float64, balancer.State) {
	var mean, sumW float64
	n := 0
	for i, h := range t.hosts {
		if !h.fresh {
			mean += obs[i]
			sumW += h.w
			n++
		}
	}
	mean /= float64(n)
	w := make([]float64, len(t.hosts))
	for i, h := range t.hosts {
		if h.fresh {
			w[i] = sumW / float64(n)
			continue
		}
		w[i] = math.Max(1e-6, h.w*(1+0.5*(mean-obs[i])/mean))
	}
	return w, 0
}

// quantile is the q-quantile of xs by nearest rank: the ceil(q x n)-th
// smallest value. A product q x n within a relative 1e-9 of a whole number is
// that number: 0.55 x 100 computes to 55.00000000000001, whose ceiling would
// read one rank too high.
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	x := q * float64(len(s))
	if w := math.Round(x); math.Abs(x-w) <= 1e-9*w {
		x = w
	}
	i := int(math.Ceil(x)) - 1
	return s[min(len(s)-1, max(0, i))]
}
