package balancer

import (
	"math"
	"slices"
)

// view is one run's derived inputs.
type view struct {
	hosts   []Host
	age     []int     // runs since joining; math.MaxInt for initial hosts
	known   []bool    // has a CPU signal and a weight, and is not new
	load    []float64 // CPU / mean CPU of known hosts
	eff     []float64 // (weight / (cores * CPU)) / its median over known hosts (see logEff)
	nKnown  int
	meanCPU float64
	maxMean float64
	joins   int    // hosts that joined within ChurnWindow runs (see Balancer.ages)
	wasHot  []bool // flagged hot within HotHold runs
}

func newView(cfg Config, hosts []Host, age []int, wasHot []bool) *view {
	n := len(hosts)
	v := &view{hosts: hosts, age: age, wasHot: wasHot, known: make([]bool, n), load: make([]float64, n), eff: make([]float64, n)}
	var sum, maxCPU float64
	var effs []float64
	for i, h := range hosts {
		if age[i] < cfg.ChurnWindow {
			v.joins++
		}
		if h.New || h.Weight == 0 || h.CPU == 0 {
			continue
		}
		v.known[i] = true
		v.nKnown++
		sum += h.CPU
		maxCPU = math.Max(maxCPU, h.CPU)
		v.eff[i] = logEff(h)
		effs = append(effs, v.eff[i])
	}
	if v.nKnown == 0 {
		return v
	}
	v.meanCPU = sum / float64(v.nKnown)
	if math.IsInf(sum, 1) {
		// CPUs near math.MaxFloat64 overflow the sum: average them over the largest.
		sum = 0
		for i, h := range hosts {
			if v.known[i] {
				sum += h.CPU / maxCPU
			}
		}
		v.meanCPU = sum / float64(v.nKnown) * maxCPU
	}
	v.maxMean = maxCPU / v.meanCPU
	med := logMedian(effs)
	for i := range hosts {
		if v.known[i] {
			v.load[i] = hosts[i].CPU / v.meanCPU
			v.eff[i] = math.Exp(v.eff[i] - med)
		}
	}
	return v
}

// logEff returns the log of h's raw efficiency, weight / (cores * CPU). The ratio
// does not depend on the units, but computed from the raw figures it overflowed (a
// large TargetMedian over cores in a small unit: every efficiency +Inf, NaN once
// relative to the median) or underflowed; its log is finite for any figures above 0.
func logEff(h Host) float64 {
	return math.Log(h.Weight) - math.Log(h.Cores) - math.Log(h.CPU)
}

// logMedian returns the log of the median of the values whose logs are ls (len > 0):
// for an even count, of the mean of the middle two, as median computes it.
func logMedian(ls []float64) float64 {
	s := slices.Clone(ls)
	slices.Sort(s)
	m := len(s) / 2
	if len(s)%2 == 1 || s[m-1] == s[m] {
		// equal middle values are their mean, also when both are the same
		// infinity (the log of a weight 0 or +Inf), whose difference is NaN
		return s[m]
	}
	return s[m] + math.Log((1+math.Exp(s[m-1]-s[m]))/2)
}

// median returns the median of xs (reordering a copy).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	if x := (s[m-1] + s[m]) / 2; !math.IsInf(x, 0) {
		return x
	}
	return s[m-1]/2 + s[m]/2 // the sum overflowed: both are near math.MaxFloat64
}

// cv returns the coefficient of variation of xs (all >= 0).
//
// A ratio, it does not depend on the unit, but the sums behind it do: cores or
// weights near the float64 maximum overflowed the sum (a NaN cv), and tiny ones
// underflowed their squared deviations (a cv of 0), so a fresh tier in such a unit
// was not FlatInitial. The values are taken over a power of two near the largest
// first: exact, so in the ordinary range the result does not change by a bit.
func cv(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	top := slices.Max(xs)
	if top == 0 {
		return 0
	}
	_, exp := math.Frexp(top)
	var sum, sq float64
	for _, x := range xs {
		sum += math.Ldexp(x, -exp)
	}
	mean := sum / float64(len(xs))
	for _, x := range xs {
		d := math.Ldexp(x, -exp) - mean
		sq += d * d
	}
	return math.Sqrt(sq/float64(len(xs))) / mean
}
