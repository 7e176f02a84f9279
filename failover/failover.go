package failover

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"
	"time"
)

// Router computes the tier's cross-region routing table, one run at a time. It keeps,
// per region, the signal's trend and the failover phase (for hysteresis); every run is
// otherwise a pure function of the input and the Config.
//
// It is safe for concurrent use (a mutex serializes runs). It starts no goroutine and
// reads no clock.
type Router struct {
	mu sync.Mutex
	// protected by mu
	cfg       Config
	run       uint64
	state     map[string]*regionState
	routes    map[Route]bool  // routes in force (Share zeroed), for counting route changes
	receiving map[string]bool // regions that received spill in the last table
	stats     Stats
}

type regionState struct {
	phase    Phase
	since    uint64  // run the phase began
	lastHome float64 // last Signal.Home, for the trend
	trend    float64 // EWMA of the per-run change of Signal.Home
	share    float64 // spill share in force (before knobs)
	rose     uint64  // last run the share rose
	out      float64 // share of its demand sent away in the last table (RegionDecision.Out)
	seen     bool
	imbal    bool // lastHome was read at the hosts' imbalance (not at 1, without host CPUs)
}

// Stats is a snapshot of a Router's counters, monotonic from New and never
// reset (SetConfig keeps them), and of the Spilling gauge.
type Stats struct {
	Runs         uint64 // completed runs (Step calls that returned a Table)
	Rejected     uint64 // Step calls rejected for bad input (not counted in Runs)
	SpillStarts  uint64 // Local -> Spilling transitions
	SpillEnds    uint64 // Spilling -> Local transitions
	RouteChanges uint64 // routes turned on or off
	Spilling     int    // gauge: regions spilling after the last run, less those SetConfig removed since
}

// New returns a Router for cfg or an error wrapping [ErrInvalidConfig].
func New(cfg Config) (*Router, error) {
	r := &Router{state: make(map[string]*regionState), routes: make(map[Route]bool)}
	if err := r.SetConfig(cfg); err != nil {
		return nil, err
	}
	return r, nil
}

// SetConfig validates cfg and uses it from the next run on; the per-region state of
// regions that remain is kept. A removed region that was spilling counts as a spill
// end (Stats.SpillEnds) and leaves Stats.Spilling at once; its routes, and routes to
// it, are gone from the next table (counted as route changes then). A new
// Percentile changes what Signal.Home reads, not the load: the next run is a new
// baseline of each region's trend (as after a gap in its reports, but the trend
// is kept), so the step between the two readings is not projected as a ramp. On
// error the previous Config stays in force.
func (r *Router) SetConfig(cfg Config) error {
	c := cfg.withDefaults()
	if err := c.validate(); err != nil {
		return err
	}
	c.Regions = slices.Clone(c.Regions)
	for i := range c.Regions {
		c.Regions[i].Ring = slices.Clone(c.Regions[i].Ring)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	rebase := c.Percentile != r.cfg.Percentile
	r.cfg = c
	for name, st := range r.state {
		if rebase {
			// Home read at the old percentile less Home at the new one is
			// the change of the setting, not a per-run change of the load
			// (p50 to p90 read a steady tier's 0.6 as 0.72, a trend that
			// projected 0.90 and fired every region).
			st.seen = false
		}
		if !slices.ContainsFunc(c.Regions, func(x Region) bool { return x.Name == name }) {
			if st.phase == Spilling {
				// its spill ends with it: the next run routes nothing from it
				r.stats.SpillEnds++
				r.stats.Spilling--
			}
			delete(r.state, name)
		}
	}
	return nil
}

// Config returns the Config in force, with defaults filled in.
func (r *Router) Config() Config {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.cfg
	c.Regions = slices.Clone(c.Regions)
	for i := range c.Regions {
		c.Regions[i].Ring = slices.Clone(c.Regions[i].Ring)
	}
	return c
}

// Stats returns a snapshot of r's counters.
func (r *Router) Stats() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stats
}

// Step computes the routing table at now from each region's load. A configured
// region missing from loads is treated as down (Capacity 0, no demand).
//
// Errors: a [*LoadError] for an unknown or duplicate region, a negative, NaN or
// infinite figure, or a Capacity above 0 and below [MinCapacity]; nothing changes
// and the caller should keep the published table. An unknown region's matches
// [ErrUnknownRegion] (errors.Is): a report for a region that SetConfig removed,
// which the caller may drop, with every other the error's Unknown lists, and
// step again once.
func (r *Router) Step(now time.Time, loads []Load) (Table, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	byName, err := r.index(loads)
	if err != nil {
		r.stats.Rejected++
		return Table{}, err
	}
	r.run++
	cfg := r.cfg
	n := len(cfg.Regions)
	t := Table{Now: now, Run: r.run, Regions: make([]RegionDecision, n)}
	sig := make([]Signal, n)
	k := make([]float64, n) // percentile over mean: the region's internal imbalance
	for i, reg := range cfg.Regions {
		l := byName[reg.Name]
		st := r.regionState(reg.Name)
		sig[i], k[i] = r.signal(cfg, st, l)
		t.Regions[i] = RegionDecision{Name: reg.Name, Signal: sig[i]}
	}
	for i, reg := range cfg.Regions {
		r.decide(cfg, r.state[reg.Name], reg, byName[reg.Name], sig[i], r.receiving[reg.Name], &t.Regions[i])
	}
	r.place(cfg, byName, k, &t)
	for i, reg := range cfg.Regions {
		r.state[reg.Name].out = t.Regions[i].Out
	}
	r.count(&t)
	return t, nil
}

func (r *Router) regionState(name string) *regionState {
	st := r.state[name]
	if st == nil {
		st = &regionState{phase: Local}
		r.state[name] = st
	}
	return st
}

// index checks loads and maps them by region name.
func (r *Router) index(loads []Load) (map[string]Load, error) {
	known := make(map[string]bool, len(r.cfg.Regions))
	for _, reg := range r.cfg.Regions {
		known[reg.Name] = true
	}
	m := make(map[string]Load, len(loads))
	for i, l := range loads {
		bad := func(why string, args ...any) error {
			return &LoadError{Region: l.Region, Reason: fmt.Sprintf(why, args...)}
		}
		switch {
		case !known[l.Region]:
			return nil, unknownRegions(r.cfg.Tier, known, loads[i:])
		case math.IsNaN(l.Demand) || l.Demand < 0 || math.IsInf(l.Demand, 0):
			return nil, bad("demand %v", l.Demand)
		case math.IsNaN(l.Capacity) || l.Capacity < 0 || math.IsInf(l.Capacity, 0):
			return nil, bad("capacity %v", l.Capacity)
		case l.Capacity > 0 && l.Capacity < MinCapacity:
			// subnormal: too few bits to hold a receiver's headroom (0.75 x
			// 5e-324 rounds up to 5e-324, a receiver filled to 100%)
			return nil, bad("capacity %v below MinCapacity %v", l.Capacity, MinCapacity)
		}
		if _, dup := m[l.Region]; dup {
			return nil, bad("listed twice")
		}
		for _, c := range l.HostCPU {
			if math.IsNaN(c) || c < 0 || math.IsInf(c, 0) {
				return nil, bad("host CPU %v", c)
			}
		}
		m[l.Region] = l
	}
	return m, nil
}

// signal computes the region's signal and updates its trend.
//
// The hosts give the percentile P and the hot share: both react to the hottest hosts,
// which a regional mean smooths away. P over the mean, or 1 if it is below 1, is the
// region's internal imbalance k. Home = Demand/Capacity * k is the percentile CPU the region would run
// at serving only its own demand: unlike the observed CPU it does not move when routes
// change, so spilling does not hide the pressure that caused it and receiving does not
// fake pressure. Its EWMA trend projects it LeadRuns runs ahead (Projected), so a
// rising region fires several runs before it gets hot.
func (r *Router) signal(cfg Config, st *regionState, l Load) (Signal, float64) {
	var s Signal
	util := 0.0
	switch {
	case l.Capacity > 0:
		util = l.Demand / l.Capacity
	case l.Demand > 0:
		util = math.Inf(1)
	}
	k := 1.0
	if len(l.HostCPU) > 0 {
		xs := slices.Clone(l.HostCPU)
		slices.Sort(xs)
		hot := 0
		for _, x := range xs {
			if x > cfg.HotCPU {
				hot++
			}
		}
		s.Mean = mean(xs)
		s.P = xs[percentileIndex(cfg.Percentile, len(xs))]
		s.HotShare = float64(hot) / float64(len(xs))
		if s.Mean > 0 {
			k = math.Max(1, s.P/s.Mean)
		}
	}
	s.Home = util * k
	// Without host CPUs (or with all at 0) Home is read at an imbalance of 1:
	// another measure than the hosts give, as another Percentile is. A reading
	// on the other basis than the last is a new baseline (the trend is kept):
	// one lost scrape of a region at p90/mean 1.9 read its steady Home 0.74 as
	// 0.39 and back, a rise that projected 0.90 and fired it.
	imbal := len(l.HostCPU) > 0 && s.Mean > 0
	if st.seen && imbal == st.imbal && !math.IsInf(s.Home, 0) && !math.IsInf(st.lastHome, 0) && l.Capacity > 0 {
		st.trend = (1-cfg.TrendAlpha)*st.trend + cfg.TrendAlpha*(s.Home-st.lastHome)
	}
	st.imbal = imbal
	// A down or unreported region (Capacity 0) gives no reading of its home load:
	// the next report re-baselines the trend instead of reading 0 -> x as a ramp,
	// and the trend restarts from 0: the rate from before the gap, however long
	// ago, says nothing about the load now and would fire (or mask) failover.
	st.seen, st.lastHome = l.Capacity > 0, s.Home
	if !st.seen {
		st.trend = 0
	}
	s.Trend = st.trend
	s.Projected = s.Home + cfg.LeadRuns*math.Max(st.trend, 0)
	return s, k
}

// mean returns the mean of xs, sorted. CPUs near the float64 maximum overflow
// their sum: they are then averaged over the largest, so the mean stays the
// finite one, and with it the imbalance P/Mean.
func mean(xs []float64) float64 {
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	if top := xs[len(xs)-1]; math.IsInf(sum, 1) {
		sum = 0
		for _, x := range xs {
			sum += x / top
		}
		return sum / float64(len(xs)) * top
	}
	return sum / float64(len(xs))
}

// percentileIndex returns floor(p x n) capped at n-1, the index Config.Percentile
// documents. The product is rounded first when it is within a relative 1e-9 of a
// whole number: a percentile such as 0.7 is stored a little below 7/10, so 0.7 x 90
// computes to 62.99999999999999, and truncating it would read one rank lower for
// some host counts (nearest rank) and not for others.
func percentileIndex(p float64, n int) int {
	x := p * float64(n)
	if w := math.Round(x); math.Abs(x-w) <= 1e-9*w {
		x = w
	}
	return min(n-1, int(x))
}

// decide moves the region between phases (with hysteresis) and sets its wanted spill
// share. receiving reports whether the region took spill in the last table (then its
// hot hosts may be someone else's traffic and do not fire).
func (r *Router) decide(cfg Config, st *regionState, reg Region, l Load, s Signal, receiving bool, d *RegionDecision) {
	if reg.Knobs == (Knobs{}) {
		// Failover is off for the region: it never spills, so it stays (or, with the
		// knobs turned off by SetConfig, goes back to) Local and may receive.
		if st.phase == Spilling {
			st.phase, st.since = Local, r.run
			r.stats.SpillEnds++
		}
		st.share = 0
		d.Phase, d.Reason = Local, "failover off: zero knobs"
		return
	}
	want := 0.0
	if s.Projected > cfg.Target {
		want = 1 - cfg.Target/s.Projected
	}
	var done bool
	switch st.phase {
	case Local:
		want, done = r.decideLocal(cfg, st, l, s, receiving, want, d)
	case Spilling:
		want, done = r.decideSpilling(cfg, st, l, s, receiving, want, d)
	}
	if done {
		return
	}
	// Rise at once (by more than MinChange); wind down only when the want is zero or more
	// than twice MinChange below the share and nothing rose for MinHold runs, by at most
	// DownStep per run. The asymmetric band absorbs signal noise, so the share moves
	// in one direction at a time instead of flapping.
	switch {
	case want > st.share+cfg.MinChange:
		st.share, st.rose = want, r.run
	case (want < st.share-2*cfg.MinChange || want == 0) && st.share > 0 && r.run-st.rose >= uint64(cfg.MinHold):
		// A share wound down by DownStep steps carries their rounding: 0.1 less
		// 0.02 five times leaves 7.6e-17, not 0, and that dust would be published
		// as routes of a share around 1e-17 (no client would ever pick them).
		// What is left within a billionth of the share is 0. The same
		// rounding leaves a share meant to be DownStep a few ulps off it,
		// which the checks against DownStep (recovery at share <= DownStep,
		// parked below it) read as the other side: within a billionth of
		// DownStep it is DownStep.
		next := st.share - cfg.DownStep
		switch {
		case next <= 1e-9*st.share:
			next = 0
		case math.Abs(next-cfg.DownStep) <= 1e-9*cfg.DownStep:
			next = cfg.DownStep
		}
		st.share = math.Max(want, next)
	}
	d.Phase, d.Want = Spilling, st.share
}

// decideLocal is decide for a region at home: it stays (done) or fires,
// returning the share it wants.
func (r *Router) decideLocal(cfg Config, st *regionState, l Load, s Signal, receiving bool, want float64, d *RegionDecision) (float64, bool) {
	hot := s.HotShare >= cfg.HotShare && !receiving
	if (s.Projected < cfg.Enter && !hot) || l.Demand == 0 {
		d.Phase = Local
		if s.Projected < cfg.Enter {
			proj, enter := below(s.Projected, cfg.Enter)
			d.Reason = fmt.Sprintf("home p%.10g %.2f projected %s < enter %s",
				100*cfg.Percentile, s.Home, proj, enter)
		} else {
			// no demand to send away, whatever the trend projects
			d.Reason = fmt.Sprintf("no demand: home p%.10g %.2f projected %.2f",
				100*cfg.Percentile, s.Home, s.Projected)
		}
		st.share = 0
		return want, true
	}
	st.phase, st.since, st.share = Spilling, r.run, 0
	r.stats.SpillStarts++
	if want <= cfg.MinChange || want < cfg.DownStep {
		// Hot hosts with little or no demand excess (or an Enter close to
		// Target): shed at least DownStep, set directly. The rise rule below
		// drops a rise of MinChange or less, which left the region spilling
		// with a share of 0: shedding nothing and refusing spill; and a want
		// between MinChange and a larger DownStep would pass it unfloored.
		want = math.Max(want, cfg.DownStep)
		st.share, st.rose = want, r.run
	}
	d.Reason = fmt.Sprintf("fired: home p%.10g %.2f (mean CPU %.2f) trend %+.3f/run projected %.2f, hot %.0f%%",
		100*cfg.Percentile, s.Home, s.Mean, s.Trend, s.Projected, 100*s.HotShare)
	return want, false
}

// decideSpilling is decide for a spilling region: it recovers (done) or
// keeps spilling, returning the share it wants.
func (r *Router) decideSpilling(cfg Config, st *regionState, l Load, s Signal, receiving bool, want float64, d *RegionDecision) (float64, bool) {
	// Hot hosts keep the region spilling at its share: winding down and recovering
	// while they are still hot fires again on the next run (a flap every MinHold runs).
	hot := s.HotShare >= cfg.HotShare && !receiving
	// So do hosts that are hot at home demand, as Home is read: the spill in force
	// relieves them, and read only as they are now they cool below HotCPU because
	// of it, the region recovers and fires again on the next run. They keep the
	// share a fresh firing would set (DownStep) and stop the recovery.
	homeHot := hotAtHome(cfg, l, st.out) >= cfg.HotShare && !receiving
	// Held MinHold runs since it fired and since its share last rose: hot
	// hosts (or a Projected at Enter) that fire a parked region again (below)
	// hold it as long as they hold a Local region they fire, not one run.
	held := r.run-st.since >= uint64(cfg.MinHold) && r.run-st.rose >= uint64(cfg.MinHold)
	if held && s.Projected < cfg.Exit && st.share <= cfg.DownStep && !hot && !homeHot {
		st.phase, st.since, st.share = Local, r.run, 0
		r.stats.SpillEnds++
		proj, exit := below(s.Projected, cfg.Exit)
		d.Phase, d.Reason = Local, fmt.Sprintf("recovered: home p%.10g projected %s < exit %s",
			100*cfg.Percentile, proj, exit)
		return want, true
	}
	if st.share < cfg.DownStep && (hot || homeHot || s.Projected >= cfg.Enter) {
		// Parked (wound down to less than DownStep, its home load between Exit
		// and Target) when its hosts got hot, now or at home demand, or its
		// Projected reached Enter: that fires it as it would a Local region,
		// shedding at least DownStep at once, which the rise rule below (by more
		// than MinChange) would not do: a want of MinChange or less (Enter close
		// to Target) shed nothing, and hosts hot only at home would have kept
		// the parked share, less than DownStep.
		want = math.Max(want, cfg.DownStep)
		st.share, st.rose = want, r.run
	}
	switch {
	case hot:
		want = math.Max(want, st.share) // no winding down while the hosts are hot
	case homeHot:
		want = math.Max(want, math.Min(st.share, cfg.DownStep))
	}
	d.Reason = fmt.Sprintf("spilling: home p%.10g projected %.2f, target %.2f, hot %.0f%%",
		100*cfg.Percentile, s.Projected, cfg.Target, 100*s.HotShare)
	return want, false
}

// below formats a and b, a < b, for a reason that prints "a < b": with two
// decimals, or as many more as it takes for the printed a to read below the
// printed b (0.6799 and 0.68 both print 0.68 with two: "0.680 < 0.680"
// would read as false too, so it is "0.6799 < 0.6800"). Past 17 decimals
// (tiny figures) each is its shortest exact form.
func below(a, b float64) (string, string) {
	for prec := 2; prec <= 17; prec++ {
		x, y := strconv.FormatFloat(a, 'f', prec, 64), strconv.FormatFloat(b, 'f', prec, 64)
		// rounding to a fixed precision keeps the order, so the printed
		// figures read a <= b; compared as numbers ("-0.00" is "0.00")
		px, _ := strconv.ParseFloat(x, 64)
		py, _ := strconv.ParseFloat(y, 64)
		if px < py {
			return x, y
		}
	}
	return strconv.FormatFloat(a, 'g', -1, 64), strconv.FormatFloat(b, 'g', -1, 64)
}

// hotAtHome returns the share of l's hosts above HotCPU once the share out of the
// region's demand, sent away by the table in force when the hosts were read, is
// back home, spread evenly over the hosts (out x Demand/Capacity each). With out 0
// it is Signal.HotShare.
func hotAtHome(cfg Config, l Load, out float64) float64 {
	if len(l.HostCPU) == 0 {
		return 0
	}
	back := 0.0
	if out > 0 && l.Capacity > 0 {
		back = out * (l.Demand / l.Capacity)
	}
	hot := 0
	for _, x := range l.HostCPU {
		if x+back > cfg.HotCPU {
			hot++
		}
	}
	return float64(hot) / float64(len(l.HostCPU))
}

// count updates the route-change counter and phase gauge.
func (r *Router) count(t *Table) {
	now := make(map[Route]bool, len(t.Routes))
	for _, rt := range t.Routes {
		rt.Share = 0 // a route is its ends and mechanism
		now[rt] = true
		if !r.routes[rt] {
			r.stats.RouteChanges++
		}
	}
	for k := range r.routes {
		if !now[k] {
			r.stats.RouteChanges++
		}
	}
	r.routes = now
	r.receiving = make(map[string]bool)
	for _, rt := range t.Routes {
		r.receiving[rt.To] = true
	}
	r.stats.Runs++
	r.stats.Spilling = 0
	for _, d := range t.Regions {
		if d.Phase == Spilling {
			r.stats.Spilling++
		}
	}
}
