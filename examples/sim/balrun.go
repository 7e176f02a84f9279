package main

import (
	"math"

	"github.com/tierkit/tierkit/balancer"
)

// balResult is what one (scenario, controller) run measured.
type balResult struct {
	scenario, ctl string
	// MaxMean is the worst true max/mean CPU over the settled window (last third).
	MaxMean float64
	// P95 is the 95th percentile of max/mean over the runs from onset on.
	P95 float64
	// Settle is the number of runs after onset until max/mean <= 1.10 holds for
	// settleRuns runs; -1 if never.
	Settle int
	// Moved and MovedMax are the mean and max share of keyspace moved per run over
	// the settled window.
	Moved, MovedMax float64
	// Jitter is the mean relative weight change per host per run, settled window.
	Jitter float64
	// Over100 counts host-runs above 100% true CPU from run 1 on (after the first
	// controller step).
	Over100 int
	// FlatSettled is the first run from which max/mean stays <= 1.06 for
	// settleRuns runs; -1 if never (the flat-initial target reads it).
	FlatSettled int
	// MinMed is min over median weight at the end.
	MinMed float64
	// Accuracy is the classifier's share of right answers over runs at least 3 after
	// the last change of the true state; NaN for baselines.
	Accuracy float64
	// Series and MovedSeries are max/mean and keyspace moved per run, for the plots.
	Series, MovedSeries []float64
}

// settleRuns is how many runs in a row max/mean must stay at or under 1.10 for
// a scenario to count as settled.
const settleRuns = 20

// minBalRuns is the fewest runs per scenario that measure every column: the
// latest shock, then one settle window. With fewer, a shock never happens (its
// p95 over the runs from onset on is NaN) and settle reads -1 for lack of
// room, not because the controller never settled.
func minBalRuns() int {
	onset := 0
	for _, sc := range balScenarios {
		onset = max(onset, sc.onset)
	}
	return onset + settleRuns
}

// truthAt is the tier state the classifier should report at run r.
func (sc balScenario) truthAt(r int) (balancer.State, int) {
	switch {
	case sc.truth == balancer.FlatInitial && r == 0:
		return balancer.FlatInitial, 0
	case sc.truth == balancer.FlatInitial:
		return balancer.SteadyDrift, 1
	case sc.onset > 0 && r < sc.onset:
		return balancer.SteadyDrift, 0
	}
	return sc.truth, sc.onset
}

// runBalancer runs one scenario under one controller.
func runBalancer(p balParams, seed uint64, sc balScenario, ctl controller) balResult {
	t := newTier(p, seed)
	sc.setup(t)
	res := balResult{scenario: sc.name, ctl: ctl.name(), Settle: -1, Accuracy: math.NaN()}
	settledFrom := p.Runs * 2 / 3
	right, judged := 0, 0
	var weights []float64
	for run := range p.Runs {
		if sc.churn && run%10 == 0 {
			t.churn()
		}
		if run == sc.onset && sc.shock != nil {
			sc.shock(t)
		}
		t.drift()
		cpu := t.cpu()
		mm := maxMean(t, cpu)
		res.Series = append(res.Series, mm)
		if run >= 1 {
			for i, c := range cpu {
				if c > 1 && !t.hosts[i].fresh {
					res.Over100++
				}
			}
		}
		obs := t.observe(cpu)
		w, state := ctl.step(run, t, obs)
		moved, jitter := movement(t, w)
		res.MovedSeries = append(res.MovedSeries, moved)
		if run >= settledFrom {
			res.Moved += moved / float64(p.Runs-settledFrom)
			res.MovedMax = math.Max(res.MovedMax, moved)
			res.Jitter += jitter / float64(p.Runs-settledFrom)
			res.MaxMean = math.Max(res.MaxMean, mm)
		}
		if truth, since := sc.truthAt(run); state != 0 && run-since >= 3 {
			judged++
			if state == truth {
				right++
			}
		}
		for i := range t.hosts {
			t.hosts[i].w, t.hosts[i].fresh = w[i], false
		}
		weights = w
	}
	if judged > 0 {
		res.Accuracy = float64(right) / float64(judged)
	}
	var post []float64
	for r := sc.onset; r < p.Runs; r++ {
		post = append(post, res.Series[r])
	}
	res.P95 = quantile(post, 0.95)
	if r := firstHold(res.Series, sc.onset, 1.10); r >= 0 {
		res.Settle = r - sc.onset
	}
	res.FlatSettled = firstHold(res.Series, 0, 1.06)
	res.MinMed = quantile(weights, 0) / quantile(weights, 0.5)
	return res
}

// firstHold is the first run r >= from such that series stays <= limit over
// runs r to r+settleRuns-1; -1 if there is none.
func firstHold(series []float64, from int, limit float64) int {
	for r := from; r+settleRuns <= len(series); r++ {
		ok := true
		for _, x := range series[r : r+settleRuns] {
			ok = ok && x <= limit
		}
		if ok {
			return r
		}
	}
	return -1
}

// maxMean is max over mean true CPU of the hosts that carry traffic.
func maxMean(t *tier, cpu []float64) float64 {
	var sum, mx float64
	n := 0
	for i, c := range cpu {
		if t.hosts[i].fresh {
			continue
		}
		sum += c
		mx = math.Max(mx, c)
		n++
	}
	return mx / (sum / float64(n))
}

// movement returns the share of keyspace moved among the hosts present before and
// after the run (half the L1 change of their weight shares; keys a joining host takes
// are the price of the join, not of the controller) and the mean relative change of
// those hosts' shares (jitter).
func movement(t *tier, w []float64) (moved, jitter float64) {
	var so, sn float64
	for i, h := range t.hosts {
		if !h.fresh {
			so += h.w
			sn += w[i]
		}
	}
	n := 0
	for i, h := range t.hosts {
		if h.fresh {
			continue
		}
		moved += math.Abs(w[i]/sn - h.w/so)
		if h.w > 0 {
			jitter += math.Abs(w[i]/sn-h.w/so) / (h.w / so)
			n++
		}
	}
	return moved / 2, jitter / float64(n)
}

// balControllers returns fresh controllers for one scenario run.
func balControllers() []controller {
	b, err := balancer.New(balancer.Config{})
	if err != nil {
		panic(err)
	}
	return []controller{&tierkitCtl{b: b}, staticCtl{}, wrrCtl{}, propCtl{}}
}

// runBalancerAll runs every scenario under every controller with the same seed.
func runBalancerAll(p balParams, seed uint64) []balResult {
	var out []balResult
	for _, sc := range balScenarios {
		for _, c := range balControllers() {
			out = append(out, runBalancer(p, seed, sc, c))
		}
	}
	return out
}
