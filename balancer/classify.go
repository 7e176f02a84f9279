package balancer

import (
	"fmt"
	"maps"
	"math"
	"slices"
)

// classify names the tier's state from the run's features. The checks run in the
// order of the State constants; the first that holds wins. Efficiency-based features
// (weight per core per unit of CPU, relative to the median) do not depend on the
// current weights, so a state stays recognized after the balancer has corrected it:
// a bimodal tier keeps bimodal weights per core, hot outliers keep needing less weight.
func classify(cfg Config, v *view) (State, string) {
	n := len(v.hosts)
	// the cores of the same hosts as the weights: a host without a weight (one
	// joining a tier of identical, equally weighted hosts) says nothing of whether
	// those weights were set by capacity
	var weights, cores []float64
	for _, h := range v.hosts {
		if h.Weight > 0 {
			weights = append(weights, h.Weight)
			cores = append(cores, h.Cores)
		}
	}
	if len(weights) >= 2 && len(weights)*2 >= n {
		if wcv, ccv := cv(weights), cv(cores); wcv < 0.005 && ccv > 0.05 && !flatBalanced(cfg, v) {
			return FlatInitial, fmt.Sprintf("weights flat (cv %.4f) while cores vary (cv %.2f)", wcv, ccv)
		}
	}
	if share := float64(v.joins) / float64(n); share > cfg.ChurnShare {
		return TaskChurn, fmt.Sprintf("%d of %d hosts (%.1f%%) joined in the last %d runs", v.joins, n, 100*share, cfg.ChurnWindow)
	}
	if v.nKnown < 8 {
		return SteadyDrift, fmt.Sprintf("only %d hosts with a signal: steady policy", v.nKnown)
	}
	if spread, eta, ok := regionSkew(v); ok && spread > cfg.RegionSpread && eta >= cfg.RegionEta {
		return RegionalSkew, fmt.Sprintf("region median efficiency spread %.3f, region explains %.0f%% of variance", spread, 100*eta)
	}
	if sep, low := bimodality(cfg, v); sep > cfg.BimodalSeparation {
		return BimodalLoad, fmt.Sprintf("two efficiency clusters %.1f sd apart, %.0f%% in the lower", sep, 100*low)
	}
	// a share of hosts compares as a quotient: 29 of 100 is 0.29, whereas 0.29*100 is
	// 28.999999999999996 and would leave the 29th host out
	if hot := countHot(cfg, v); hot > 0 && float64(hot)/float64(v.nKnown) <= cfg.HotMaxShare {
		return HotOutliers, fmt.Sprintf("%d of %d hosts hot (load > %.2f or efficiency < %.2f), max/mean %.3f",
			hot, v.nKnown, 1+cfg.HotLoad, cfg.HotEfficiency, v.maxMean)
	}
	return SteadyDrift, fmt.Sprintf("max/mean %.3f, no churn, outliers, regional skew or clusters", v.maxMean)
}

// flatBalanced reports whether the hosts' CPU shows that flat weights already
// balance the tier, so they are its weights and not a fresh tier's: at most
// WideShare of the known hosts outside the deadband (settled, as policyFor reads
// it), and their CPU (a fraction of each host's cores) spreading no more than
// the cores each keeps busy (CPU x Cores) do. On a fresh tier at equal weights
// every host does the same work, so the cores busy are alike and the CPU
// follows 1/Cores: capacity weights would balance it. Hosts
// that serve the same rate whatever their cores are balanced at equal weights;
// reset, the unsettled runs after it corrected them back to equal, and the next
// flat check reset them again. With fewer than 2 known hosts there is no such
// evidence.
func flatBalanced(cfg Config, v *view) bool {
	if v.nKnown < 2 {
		return false
	}
	outside := 0
	var util, busy []float64
	for i, h := range v.hosts {
		if !v.known[i] {
			continue
		}
		if !inBand(v.load[i], cfg.Deadband) {
			outside++
		}
		// logs of the raw figures: finite for any CPU and Cores above 0, where
		// a load or a product could underflow or overflow
		util = append(util, math.Log(h.CPU))
		busy = append(busy, math.Log(h.CPU)+math.Log(h.Cores))
	}
	return float64(outside)/float64(v.nKnown) <= cfg.WideShare && variance(util) <= variance(busy)
}

// variance returns the variance of xs (len > 0).
func variance(xs []float64) float64 {
	m := 0.0
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	ss := 0.0
	for _, x := range xs {
		ss += (x - m) * (x - m)
	}
	return ss / float64(len(xs))
}

// hot reports whether known host i is a hot outlier now or was within HotHold runs.
func hot(cfg Config, v *view, i int) bool {
	return v.known[i] && (hotNow(cfg, v, i) || v.wasHot[i])
}

// hotNow reports whether known host i meets a hot criterion in this run.
func hotNow(cfg Config, v *view, i int) bool {
	return v.known[i] && (v.load[i] > 1+cfg.HotLoad || v.eff[i] < cfg.HotEfficiency)
}

func countHot(cfg Config, v *view) int {
	c := 0
	for i := range v.hosts {
		if hot(cfg, v, i) {
			c++
		}
	}
	return c
}

// regionSkew returns the relative spread of per-region median efficiency and the
// share of log-efficiency variance that region explains (eta squared). ok is false
// with fewer than two regions of at least 3 known hosts.
func regionSkew(v *view) (spread, eta float64, ok bool) {
	groups := make(map[string][]float64)
	var all []float64
	for i, h := range v.hosts {
		if v.known[i] {
			l := math.Log(v.eff[i])
			groups[h.Region] = append(groups[h.Region], l)
			all = append(all, l)
		}
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	regions := 0
	for _, g := range groups {
		if len(g) < 3 {
			continue
		}
		regions++
		m := median(g)
		lo, hi = math.Min(lo, m), math.Max(hi, m)
	}
	if regions < 2 {
		return 0, 0, false
	}
	mean := 0.0
	for _, x := range all {
		mean += x
	}
	mean /= float64(len(all))
	var total, between float64
	for _, x := range all {
		total += (x - mean) * (x - mean)
	}
	// in region order: a float sum in map order differs in its last bits from run to
	// run, and an eta at RegionEta would classify at random
	for _, r := range slices.Sorted(maps.Keys(groups)) {
		g := groups[r]
		gm := 0.0
		for _, x := range g {
			gm += x
		}
		gm /= float64(len(g))
		between += float64(len(g)) * (gm - mean) * (gm - mean)
	}
	if total == 0 {
		return math.Exp(hi-lo) - 1, 0, true
	}
	return math.Exp(hi-lo) - 1, between / total, true
}

// bimodality splits the sorted log efficiencies at the point that maximizes the
// distance between the two cluster means in pooled within-cluster standard
// deviations, with at least BimodalMinShare of hosts on each side. It returns that
// separation and the share of hosts in the lower cluster.
func bimodality(cfg Config, v *view) (sep, lowShare float64) {
	var xs []float64
	for i := range v.hosts {
		if v.known[i] {
			xs = append(xs, math.Log(v.eff[i]))
		}
	}
	n := len(xs)
	slices.Sort(xs)
	pre, pre2 := make([]float64, n+1), make([]float64, n+1)
	for i, x := range xs {
		pre[i+1], pre2[i+1] = pre[i]+x, pre2[i]+x*x
	}
	// rounding up, less 1e-9: 0.07*100 is 7.000000000000001, whose ceiling would
	// reject a cluster of exactly BimodalMinShare
	minK := int(math.Ceil(cfg.BimodalMinShare*float64(n) - 1e-9))
	for k := max(minK, 2); k <= n-max(minK, 2); k++ {
		m1 := pre[k] / float64(k)
		m2 := (pre[n] - pre[k]) / float64(n-k)
		ss := (pre2[k] - float64(k)*m1*m1) + (pre2[n] - pre2[k] - float64(n-k)*m2*m2)
		sd := math.Sqrt(math.Max(ss, 0) / float64(n-2))
		s := (m2 - m1) / math.Max(sd, 1e-9)
		if s > sep {
			sep, lowShare = s, float64(k)/float64(n)
		}
	}
	return sep, lowShare
}
