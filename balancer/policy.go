package balancer

import (
	"math"
	"slices"
)

// policyFor returns the knobs for state, widened when the tier is unsettled.
func policyFor(cfg Config, v *view, state State) Policy {
	n := len(v.hosts)
	// at most MaxMoveShare of the hosts (rounding down; the 1e-9 absorbs 0.29*100 =
	// 28.999...), at least one
	p := Policy{Gain: cfg.Gain, MaxStep: cfg.MaxStep, MaxMoves: max(1, int(cfg.MaxMoveShare*float64(n)+1e-9))}
	switch state {
	case BimodalLoad:
		p.Gain, p.MaxStep, p.MaxMoves = math.Max(cfg.Gain, 0.8), math.Max(cfg.MaxStep, 0.2), max(p.MaxMoves, n/4)
	case RegionalSkew:
		p.Regional = true
	}
	outside := 0
	for i := range v.hosts {
		if v.known[i] && !inBand(v.load[i], cfg.Deadband) {
			outside++
		}
	}
	// a quotient, as for HotMaxShare: exactly WideShare of the hosts is not above it
	if v.nKnown > 0 && float64(outside)/float64(v.nKnown) > cfg.WideShare {
		p.Wide, p.Gain, p.MaxStep, p.MaxMoves = true, 1, cfg.WideMaxStep, n
	}
	return p
}

// apply computes the new weights for state.
func apply(cfg Config, v *view, state State) Result {
	n := len(v.hosts)
	pol := policyFor(cfg, v, state)
	res := Result{Policy: pol, Hosts: make([]Decision, n), MaxMean: v.maxMean}
	for i, h := range v.hosts {
		res.Hosts[i] = Decision{ID: h.ID, Old: h.Weight, New: h.Weight, Load: v.load[i]}
	}
	if state == FlatInitial {
		capacityAll(cfg, v, res.Hosts)
	} else {
		rmed := regionMedians(cfg, v, pol)
		correct(cfg, v, state, pol, rmed, res.Hosts)
		placeNew(cfg, v, res.Hosts)
	}
	finish(cfg, &res)
	return res
}

// capacityAll resets every host to cores / median cores * TargetMedian.
func capacityAll(cfg Config, v *view, ds []Decision) {
	cores := make([]float64, len(v.hosts))
	for i, h := range v.hosts {
		cores[i] = h.Cores
	}
	mc := median(cores)
	for i, h := range v.hosts {
		ds[i].New = h.Cores / mc * cfg.TargetMedian
		ds[i].Reason = ReasonCapacity
	}
}

// regionMedians returns, per host, the median load of its region when the regional
// policy applies to it (the region's median load is outside half the deadband), else 1.
func regionMedians(cfg Config, v *view, pol Policy) []float64 {
	f := make([]float64, len(v.hosts))
	for i := range f {
		f[i] = 1
	}
	if !pol.Regional {
		return f
	}
	loads := make(map[string][]float64)
	for i, h := range v.hosts {
		if v.known[i] {
			loads[h.Region] = append(loads[h.Region], v.load[i])
		}
	}
	factor := make(map[string]float64, len(loads))
	for r, ls := range loads {
		// a median load of 0 (loads underflowed next to a huge mean) gives no
		// factor: the residual load would be 0/0
		if m := median(ls); m > 0 && !inBand(m, cfg.Deadband/2) {
			factor[r] = m
		}
	}
	for i, h := range v.hosts {
		if fr, ok := factor[h.Region]; ok && v.known[i] {
			f[i] = fr
		}
	}
	return f
}

// correct nudges each known host's weight opposite to its load: the exempt hosts
// (young ones, hot outliers, everyone when the tier is unsettled) at full gain, the
// others damped, clamped, deadbanded and throttled to the MaxMoves most imbalanced.
// With the regional policy, every host of a skewed region first takes its region's
// factor (median load^-0.8, clamped to WideMaxStep) and the per-host step corrects the
// residual load / region median.
func correct(cfg Config, v *view, state State, pol Policy, rmed []float64, ds []Decision) {
	type cand struct {
		i   int
		err float64
	}
	var cands []cand
	for i, h := range v.hosts {
		switch {
		case !v.known[i] && h.Weight > 0 && !h.New:
			ds[i].Reason = ReasonNoSignal
			continue
		case !v.known[i]:
			continue
		}
		rf := regionFactor(cfg, rmed[i])
		resid := v.load[i] / rmed[i]
		if inBand(resid, cfg.Deadband) {
			nudge(&ds[i], rf, 1, 0, 0)
			continue
		}
		// young in the YoungRuns runs after its join run, not in it: a host that
		// joins with a weight (unmarked) is read in its join run, and counting that
		// run gave it YoungRuns+1 runs outside the throttle
		young := v.age[i] >= 1 && v.age[i] <= cfg.YoungRuns
		if pol.Wide || young || (state == HotOutliers && hot(cfg, v, i)) {
			nudge(&ds[i], rf, resid, 1, cfg.WideMaxStep)
			continue
		}
		cands = append(cands, cand{i, math.Abs(math.Log(resid))})
	}
	slices.SortStableFunc(cands, func(a, b cand) int {
		switch {
		case a.err > b.err:
			return -1
		case a.err < b.err:
			return 1
		}
		return a.i - b.i
	})
	for k, c := range cands {
		rf := regionFactor(cfg, rmed[c.i])
		if k < pol.MaxMoves {
			nudge(&ds[c.i], rf, v.load[c.i]/rmed[c.i], pol.Gain, pol.MaxStep)
			continue
		}
		nudge(&ds[c.i], rf, 1, 0, 0)
		ds[c.i].Reason = ReasonThrottled
	}
}

// factor is a regional factor: the region's median load^-0.8 (f), clamped to
// WideMaxStep, and whether the clamp cut it.
type factor struct {
	f   float64
	cut bool
}

// regionFactor returns the regional factor of a host whose region's median load
// is m (1 for a host the regional policy leaves alone: factor 1, not cut).
func regionFactor(cfg Config, m float64) factor {
	raw := math.Pow(m, -0.8)
	f := clamp(raw, cfg.WideMaxStep)
	return factor{f, f != raw}
}

// nudge multiplies d's weight by the regional factor r and by resid^-gain clamped to
// maxStep, and sets the reason (ReasonHeld when nothing changes). Clamped is set
// when either clamp cut its factor.
func nudge(d *Decision, r factor, resid, gain, maxStep float64) {
	rf := r.f
	raw := math.Pow(resid, -gain)
	f := clamp(raw, maxStep)
	d.Clamped = f != raw || r.cut
	d.Region = rf != 1
	d.New = d.Old * rf * f
	if rf == 1/f || f == 1/rf {
		// the two clamped to opposite ends cancel: Old x (1+s) x 1/(1+s) is
		// not Old in float64 for about a third of the weights (0.7 x 1.5 x
		// (1/1.5) is one ulp below 0.7), and read as a move
		d.New = d.Old
	}
	switch {
	case d.New < d.Old:
		d.Reason = ReasonLowered
	case d.New > d.Old:
		d.Reason = ReasonRaised
	default:
		d.Reason = ReasonHeld
	}
}

// inBand reports whether x lies in the closed band [1-band, 1+band] around 1. It
// compares x with the edges as float64 computes them, as a caller does who reads
// Decision.Load: measuring |x-1| against band is not the same test, since 1.03-1 is
// 0.030000000000000027 and would put a load of 1+0.03 outside the default deadband.
func inBand(x, band float64) bool {
	return x >= 1-band && x <= 1+band
}

// clamp limits a multiplicative factor to [1/(1+step), 1+step].
func clamp(f, step float64) float64 {
	return math.Min(math.Max(f, 1/(1+step)), 1+step)
}

// placeNew gives new hosts (and hosts without a weight) cores times the tier's median
// weight per core, times NewHostFactor. Cores are taken relative to their median
// first: a weight over raw cores overflowed (a large TargetMedian over cores in a
// small unit) and gave the new host MaxWeight.
func placeNew(cfg Config, v *view, ds []Decision) {
	cores := make([]float64, len(v.hosts))
	for i, h := range v.hosts {
		cores[i] = h.Cores
	}
	mc := median(cores)
	var wpc []float64
	finite := true
	for i, h := range v.hosts {
		if h.Weight > 0 && !h.New {
			x := ds[i].New / (h.Cores / mc)
			finite = finite && x > 0 && !math.IsInf(x, 1)
			wpc = append(wpc, x)
		}
	}
	per := cfg.TargetMedian
	if len(wpc) > 0 {
		per = median(wpc)
	}
	// Cores spanning more than the float64 range leave a host's cores over the
	// median 0 or +Inf: its weight per core read +Inf or 0 (or NaN), and a new
	// host's 0 x +Inf was published as a NaN weight. The figures are then taken
	// in logs, per raw core, where each is finite or an infinity of one sign.
	perLog := math.NaN()
	if !finite {
		var logWpc []float64
		for i, h := range v.hosts {
			if h.Weight > 0 && !h.New {
				logWpc = append(logWpc, math.Log(ds[i].New)-math.Log(h.Cores))
			}
		}
		perLog = logMedian(logWpc)
	}
	for i, h := range v.hosts {
		if needsCapacity(h) {
			if finite {
				ds[i].New = h.Cores / mc * per * cfg.NewHostFactor
			} else {
				ds[i].New = math.Exp(math.Log(h.Cores)+perLog) * cfg.NewHostFactor
			}
			ds[i].Reason = ReasonCapacity
		}
	}
}

// needsCapacity reports whether h takes a capacity weight whatever the state: a
// host marked New or without a weight.
func needsCapacity(h Host) bool {
	return h.New || h.Weight == 0
}

// finish clamps, recenters and measures the run.
func finish(cfg Config, res *Result) {
	// MaxWeight x TargetMedian may overflow: no published weight is above the
	// largest finite value.
	lo, hi := cfg.MinWeight*cfg.TargetMedian, math.Min(cfg.MaxWeight*cfg.TargetMedian, math.MaxFloat64)
	ws := make([]float64, len(res.Hosts))
	overflowed := make([]bool, len(res.Hosts))
	for i := range res.Hosts {
		// A raise of a weight near math.MaxFloat64 (or a capacity weight of huge
		// cores) overflows: keep it the largest finite weight, so the recenter
		// factor is not 0 and Inf*0 is not published as NaN.
		overflowed[i] = res.Hosts[i].New > math.MaxFloat64
		res.Hosts[i].New = math.Min(res.Hosts[i].New, math.MaxFloat64)
		ws[i] = res.Hosts[i].New
	}
	scale := 1.0
	rescale := func(w float64) float64 { return w * scale }
	if m := median(ws); m > 0 && !inBand(m/cfg.TargetMedian, cfg.RecenterBand) {
		res.Recentered, scale = true, cfg.TargetMedian/m
		if math.IsInf(scale, 1) {
			// m is subnormal and TargetMedian/m overflows: divide first, so a weight
			// that underflowed to 0 stays 0 (not 0*Inf = NaN) and ratios survive.
			rescale = func(w float64) float64 { return w / m * cfg.TargetMedian }
		}
	}
	for i := range res.Hosts {
		d := &res.Hosts[i]
		w := rescale(d.New)
		d.New = math.Min(math.Max(w, lo), hi)
		if boundSet(d.Reason, d.New != w, overflowed[i]) {
			d.Reason = ReasonBounded
		}
		if d.New != rescale(d.Old) {
			res.Changed++
		}
	}
	var oldSum, newSum, oldMax, newMax float64
	for _, d := range res.Hosts {
		oldSum += d.Old
		newSum += d.New
		oldMax, newMax = math.Max(oldMax, d.Old), math.Max(newMax, d.New)
	}
	// Weights near math.MaxFloat64 overflow the sum: sum them over the largest
	// instead (the shares are the same).
	oldDiv, newDiv := 1.0, 1.0
	if math.IsInf(oldSum, 1) {
		oldDiv, oldSum = oldMax, 0
		for _, d := range res.Hosts {
			oldSum += d.Old / oldMax
		}
	}
	if math.IsInf(newSum, 1) {
		newDiv, newSum = newMax, 0
		for _, d := range res.Hosts {
			newSum += d.New / newMax
		}
	}
	if oldSum == 0 {
		// No host had a weight: no key had an owner, and every key takes one. Half
		// the L1 change would read 0.5 here (the old shares are all zero, not a
		// distribution), though one old host among n new ones reads about 1-1/n.
		res.KeyspaceMoved = 1
		return
	}
	if res.Changed == 0 {
		// Every weight is its old one rescaled: no share changed, though the
		// shares over the two sums differ in their last bits (a recenter alone
		// read 1.4e-16 moved).
		return
	}
	var moved float64
	for _, d := range res.Hosts {
		moved += math.Abs(d.New/newDiv/newSum - d.Old/oldDiv/oldSum)
	}
	res.KeyspaceMoved = moved / 2
}

// boundSet reports whether the bounds, not the reason, decided a weight: they cut a
// raise or a cut short (or the float64 maximum did, when MaxWeight x TargetMedian is
// past it), and at the bound already the weight did not move at all, so "raised" or
// "lowered" would say it did; they cut a capacity weight (a new host of many or few
// cores, a flat reset of a tier of very uneven hosts), which "capacity" would call
// cores times the weight per core; or they moved a weight the load left alone (one
// outside bounds that SetConfig narrowed), which "held", "throttled" or "no-signal"
// would call unchanged.
func boundSet(r Reason, cut, overflowed bool) bool {
	switch r {
	case ReasonRaised, ReasonLowered, ReasonCapacity:
		return cut || overflowed
	case ReasonHeld, ReasonThrottled, ReasonNoSignal:
		return cut
	}
	return false
}
