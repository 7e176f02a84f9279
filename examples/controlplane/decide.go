package controlplane

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/tierkit/tierkit/balancer"
	"github.com/tierkit/tierkit/failover"
)

// Health is what the plane knows of a gateway's reachability.
type Health uint8

// Healths.
const (
	HealthUnknown  Health = iota + 1 // not polled yet
	HealthUp                         // the last poll succeeded
	HealthDown                       // the last poll failed: unreachable
	HealthBadState                   // the last poll answered, with a state the plane cannot use (ErrBadState)
)

var healthNames = [...]string{"", "unknown", "up", "down", "bad-state"}

// String returns "unknown", "up", "down" or "bad-state", and "invalid" for any other value.
func (h Health) String() string {
	if h > 0 && int(h) < len(healthNames) {
		return healthNames[h]
	}
	return "invalid"
}

// MarshalText encodes the health by name.
func (h Health) MarshalText() ([]byte, error) { return []byte(h.String()), nil }

// UnmarshalText decodes a name written by [Health.MarshalText].
func (h *Health) UnmarshalText(b []byte) error {
	for i := HealthUnknown; i <= HealthBadState; i++ {
		if string(b) == i.String() {
			*h = i
			return nil
		}
	}
	return fmt.Errorf("controlplane: unknown health %q", b)
}

// hostTrack is the plane's memory of one gateway.
type hostTrack struct {
	gw        Gateway
	weight    float64 // published weight, > 0
	fresh     bool    // added since the last balancer run: the balancer's Host.New
	drained   bool    // an operator drained it
	health    Health
	downTicks int // consecutive failed polls
	err       string

	polled  bool   // last holds a sample
	last    Sample // previous sample
	hasUtil bool   // util holds a measurement
	restart bool   // the next measurement starts util over; until then util is the last one, not a signal
	idled   bool   // draining at some point since the last sample: the next one covers time clients skipped it
	util    float64
	base    float64 // the live share util refers to (see rebaseLocked); 0 before any
	raw     float64 // last unsmoothed utilization
	rawNow  bool    // raw was measured over the interval that ended at this tick (the poll before it succeeded)
	skipped bool    // draining when the last tick ended: clients skipped it over the interval the next tick measures
	first   bool    // this tick's sample was the first the plane took of it (it starts the first measurement)
	rate    float64 // commands per second, last tick
	shed    float64 // shed per second, last tick
	tenants map[string]tenantRate

	decision balancer.Decision
	polls    uint64
	failures uint64
}

// tenantRate is one tenant's deltas on one gateway over the last tick.
type tenantRate struct {
	requests, shed uint64  // counted in the tick
	reqRate, rate  float64 // per second
}

// tenantTrack aggregates a tenant over the tier.
type tenantTrack struct {
	requests, shed    uint64  // cumulative since the plane started
	reqRate, shedRate float64 // last tick, per second
}

// draining reports whether clients should skip h.
func (h *hostTrack) draining(drainAfter int) bool { return h.drained || h.downTicks >= drainAfter }

// maxUtil is the largest utilization (CPU seconds per second over Cores) a
// sample may give; above it the sample is a glitch.
const maxUtil = 1e6

// minInterval is the least uptime step, in seconds, a sample is measured
// over: a nanosecond, the resolution of a Go process's clock. Over it every
// counter delta (a uint64) gives a finite rate.
const minInterval = 1e-9

// observe folds one poll into h. It is pure in (h, res, smoothing): the time base is
// the gateway's own uptime, so replayed samples give the same state.
func (h *hostTrack) observe(res pollResult, smoothing float64) {
	h.polls++
	// A sample after a failed poll (or a bad state) spans several
	// intervals: its CPU is not the last interval's.
	lastOK := h.health == HealthUp
	h.tenants = nil
	h.rate, h.shed = 0, 0
	h.rawNow, h.first = false, false
	if res.err != nil {
		h.observeErr(res.err)
		return
	}
	s := res.sample
	h.health, h.err, h.downTicks = HealthUp, "", 0
	prev := h.last
	h.last = s
	if !h.polled {
		h.polled, h.first = true, true
		return
	}
	dt := s.UptimeSeconds - prev.UptimeSeconds
	if dt < minInterval || s.CPUSeconds < prev.CPUSeconds || s.Commands < prev.Commands {
		// The process restarted (or its clock did not move): start over. A
		// step below the clock's resolution is a garbled uptime; a counter over
		// it would be a rate of +Inf, which the state cannot encode. Until the
		// next measurement the last one stands for the failover signal, as for
		// a missed poll: the gateway keeps serving its share of the ring, and
		// dropping its cores and CPU would read as a rise of its region's load.
		h.restart = true
		if s.UptimeSeconds < prev.UptimeSeconds && s.UptimeSeconds >= minInterval &&
			(s.CPUSeconds < prev.CPUSeconds || s.Commands < prev.Commands) {
			// A new process (its clock and a counter went back): its
			// counters started from zero after the last poll, so all they
			// hold was served since. Dropped, each restart lost up to a
			// cadence of its tenants' requests and sheds. (An uptime alone
			// going back may be a garbled sample: counted whole, counters
			// that did not start over would count twice.)
			h.count(Sample{}, s, s.UptimeSeconds)
		}
		return
	}
	u := (s.CPUSeconds - prev.CPUSeconds) / dt / h.gw.Cores
	rate := float64(s.Commands-prev.Commands) / dt
	if u > maxUtil || math.IsInf(rate, 0) {
		// Counters that overflow a rate, or a utilization no process runs at,
		// say nothing usable: start over. A finite but huge utilization would
		// otherwise overflow its region's demand (a sum over its gateways) to
		// +Inf, which the failover router rejects and the smoothed estimate
		// never forgets. The last measurement stands, as after a restart.
		h.restart = true
		return
	}
	h.raw, h.rawNow = u, lastOK
	switch {
	case h.idled:
		// Clients skipped it for part of the interval (drained by hand, or
		// down long enough to drain): its CPU then says nothing about its
		// weight. Averaged in, the idle reading would read as a cold gateway
		// once it is back and the balancer would raise its weight. The
		// average from before the drain missed what changed since (routes
		// that scale the whole region): start over at the next interval, as
		// after a restart. Its rates and counters still count.
		h.restart = true
	case h.hasUtil && !h.restart:
		h.util = smoothing*u + (1-smoothing)*h.util
	default:
		h.util, h.hasUtil, h.restart = u, true, false
	}
	h.count(prev, s, dt)
}

// count sets h's rates and its tenants' deltas between two samples of one
// process dt seconds apart (dt >= minInterval).
func (h *hostTrack) count(prev, s Sample, dt float64) {
	if s.Commands >= prev.Commands {
		h.rate = float64(s.Commands-prev.Commands) / dt
	}
	if s.Shed >= prev.Shed {
		h.shed = float64(s.Shed-prev.Shed) / dt
	}
	h.tenants = tenantRates(prev, s, dt)
}

// observeErr folds a failed poll into h.
func (h *hostTrack) observeErr(err error) {
	h.err = err.Error()
	h.failures++
	if errors.Is(err, ErrBadState) {
		// It answered: it is alive and clients may use it. No signal (the
		// balancer keeps its weight), no step toward draining.
		h.health, h.downTicks = HealthBadState, 0
		return
	}
	h.health = HealthDown
	h.downTicks++
}

// decideLocked folds the poll results into the hosts and runs the balancers and the
// failover router at now. Results for gateways removed (or replaced) during the
// polls are dropped.
func (p *Plane) decideLocked(now time.Time, results map[string]pollResult) {
	p.tick++
	p.stats.Ticks++
	for _, id := range p.order {
		h := p.hosts[id]
		res, ok := results[id]
		if !ok || res.gw != h.gw {
			continue // added during the polls: polled next tick
		}
		p.stats.Polls++
		if res.err != nil {
			p.stats.PollErrors++
		}
		h.observe(res, p.cfg.Smoothing)
		// A failed poll takes no sample: the next one still covers the
		// time drained before it.
		h.idled = h.idled && res.err != nil || h.draining(p.cfg.DrainAfter)
	}
	p.balanceLocked(now)
	p.rebaseLocked()
	p.failoverLocked(now)
	p.tenantsLocked()
	for _, id := range p.order {
		h := p.hosts[id]
		h.skipped = h.draining(p.cfg.DrainAfter)
	}
}

// balanceLocked runs each region's balancer over its gateways. A gateway gives the
// balancer its smoothed utilization only when it is up, not draining, and above
// Config.MinCPU; otherwise CPU 0, which the balancer reads as "no signal": the
// gateway keeps its weight (a down gateway's last weight is the best guess for
// when it comes back, and a draining one's CPU says nothing about its weight).
func (p *Plane) balanceLocked(now time.Time) {
	for _, reg := range p.cfg.Regions {
		var in []balancer.Host
		var hs []*hostTrack
		for _, id := range p.order {
			h := p.hosts[id]
			if h.gw.Region != reg.Name {
				continue
			}
			hs = append(hs, h)
			in = append(in, balancer.Host{ID: h.gw.ID, CPU: p.signal(h), Cores: h.gw.Cores,
				Weight: h.weight, Region: reg.Name, New: h.fresh})
		}
		if len(in) == 0 {
			delete(p.lastRes, reg.Name)
			continue
		}
		res, err := p.balancers[reg.Name].Step(now, in)
		if err != nil {
			p.stats.BalancerErrors++
			continue
		}
		p.lastRes[reg.Name] = res
		for i, d := range res.Hosts {
			h := hs[i]
			h.fresh, h.decision = false, d
			if d.New > 0 && !math.IsInf(d.New, 0) {
				h.weight = d.New
			}
		}
	}
}

// rebaseLocked rescales each gateway's utilization average to the routes about
// to be published. A gateway's CPU follows its live share: its weight over the
// weights of its region's gateways not draining (clients skip the draining
// ones), so an average measured at the old share predicts its CPU at the new
// one times new over old. Averaged as it is, CPU measured under old weights
// would make the balancer correct the same imbalance again on the next ticks,
// and a gateway back from a drain would be compared with peers whose averages
// still hold the load it left them. A draining gateway's average stays at the
// share it had, for when it returns. Call it after every change of weights,
// drains or membership.
func (p *Plane) rebaseLocked() {
	live := map[string]float64{}
	for _, id := range p.order {
		if h := p.hosts[id]; !h.draining(p.cfg.DrainAfter) {
			live[h.gw.Region] += h.weight
		}
	}
	for _, id := range p.order {
		h := p.hosts[id]
		sum := live[h.gw.Region]
		if h.draining(p.cfg.DrainAfter) || sum <= 0 {
			continue
		}
		share := h.weight / sum
		if h.hasUtil && h.base > 0 {
			h.util *= share / h.base
		}
		h.base = share
	}
}

// signal is the utilization the balancer and the failover signal read for h, 0 for
// none.
func (p *Plane) signal(h *hostTrack) float64 {
	if h.health != HealthUp || !h.hasUtil || h.restart || h.draining(p.cfg.DrainAfter) || h.util < p.cfg.MinCPU {
		return 0
	}
	return h.util
}

// failoverLocked steps the failover router and, when its routes moved by more than
// the share resolution, replaces the published table.
func (p *Plane) failoverLocked(now time.Time) {
	served, cpus, unmeasured := p.measureLocked()
	if !p.routerStarted {
		// Warm-up: a region's first measurement would read as a steep rise from
		// nothing and fire the trend; start the router once every region with
		// gateways has a measurement (or after a few ticks, so a region that never
		// answers does not hold failover off).
		for _, reg := range p.cfg.Regions {
			if p.capacity[reg.Name] == 0 && p.regionHasHostsLocked(reg.Name) && p.tick < uint64(p.cfg.DrainAfter+2) {
				return
			}
		}
		p.routerStarted = true
	}
	demand := estimateDemand(p.regionNames(), served, p.capacity, unmeasured, p.table.Routes, p.demand)
	loads := make([]failover.Load, 0, len(p.cfg.Regions))
	for _, reg := range p.cfg.Regions {
		n := reg.Name
		// Smooth the demand itself (not the utilization it is derived from): the
		// estimate is route-independent, so its lag cannot feed back into the routes.
		if old := p.demand[n]; old > 0 && p.capacity[n] > 0 {
			demand[n] = p.cfg.Smoothing*demand[n] + (1-p.cfg.Smoothing)*old
		}
		p.demand[n] = demand[n]
		loads = append(loads, failover.Load{Region: n, Demand: demand[n], Capacity: p.capacity[n], HostCPU: cpus[n]})
	}
	tab, err := p.router.Step(now, loads)
	if err != nil {
		p.stats.FailoverErrors++
		return
	}
	p.lastTable = tab
	routes := quantize(tab.Routes, p.cfg.ShareStep)
	if slices.Equal(routes, p.table.Routes) || within(routes, tab.Routes, p.table.Routes, p.cfg.ShareStep) {
		return
	}
	pub, err := failover.NewTable(now, tab.Run, routes)
	if err != nil {
		p.stats.FailoverErrors++
		return
	}
	p.table = pub
}

// measureLocked reads the last interval from every gateway: what each region
// served (its demand), its live gateways' CPU readings and cores (its
// capacity, stored in p.capacity), and which regions have a gateway not
// measured yet.
func (p *Plane) measureLocked() (served map[string]float64, cpus map[string][]float64, unmeasured map[string]bool) {
	served, cpus, unmeasured = map[string]float64{}, map[string][]float64{}, map[string]bool{}
	for _, reg := range p.cfg.Regions {
		p.capacity[reg.Name] = 0
	}
	for _, id := range p.order {
		// A gateway that missed a poll or two but is not draining yet still
		// serves the clients that route to it: it counts with its last
		// measurement, so one late answer does not cut its region's capacity.
		h := p.hosts[id]
		r := h.gw.Region
		live := h.hasUtil && !h.draining(p.cfg.DrainAfter)
		// A gateway drained since the last tick is no capacity, but the
		// interval just measured still saw it serve the clients that had not
		// followed the drain yet (and a drained one keeps serving those that
		// never do): that is its region's demand.
		// So did one that missed the poll, whether or not that drains it
		// now: it counts with its last measurement. A gateway draining when
		// the last tick ended (down long enough, or by hand) was skipped by
		// clients over the interval: its peers served its share, and its
		// last measurement (from before it went down) or a sample spanning
		// the time since would count it twice.
		if h.rawNow || h.hasUtil && !h.skipped {
			served[r] += h.raw * h.gw.Cores // the last interval, under the routes then in force
		}
		if !live {
			// Joined since the last tick (or not polled yet): clients send it
			// its share of the ring, and its first sample measures nothing.
			// Only then: a gateway never measured whose later samples
			// measure nothing either (it restarts between every two polls)
			// would hold its region's estimate for good.
			unmeasured[r] = unmeasured[r] || !h.draining(p.cfg.DrainAfter) &&
				(h.first || h.health == HealthUnknown)
			continue
		}
		cpus[r] = append(cpus[r], h.util)
		p.capacity[r] += h.gw.Cores
	}
	return served, cpus, unmeasured
}

func (p *Plane) regionHasHostsLocked(name string) bool {
	for _, h := range p.hosts {
		if h.gw.Region == name {
			return true
		}
	}
	return false
}

func (p *Plane) regionNames() []string {
	out := make([]string, len(p.cfg.Regions))
	for i, r := range p.cfg.Regions {
		out[i] = r.Name
	}
	return out
}

// estimateDemand returns each region's own demand in cores: the CPU its clients
// cause, wherever it is served. A region serves its own demand minus what it sends
// away plus what it receives, under the routes in force:
//
//	served[r] = D[r]*(1 - out[r]) + sum over s of D[s]*share(s -> r)
//
// solved by a few fixed-point rounds (shares are small and a spilling region does
// not receive, so it converges at once in practice). A region with no measured
// capacity (every gateway down or without a signal yet) keeps its last estimate:
// its clients still want service, and the failover router then spills what it can.
// So does a region sending (nearly) all of its clients away: what its gateways
// serve then says nothing of its demand. So does, once it has an estimate, a
// region with a gateway serving clients but not measured yet (unmeasured: it
// joined since the last tick): what the others serve is only part of its
// demand.
func estimateDemand(regions []string, served, capacity map[string]float64, unmeasured map[string]bool,
	routes []failover.Route, last map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for _, r := range routes {
		out[r.From] += r.Share
	}
	blind := func(r string) bool {
		return capacity[r] == 0 || out[r] >= 0.999 || unmeasured[r] && last[r] > 0
	}
	d := make(map[string]float64, len(regions))
	for _, r := range regions {
		d[r] = served[r]
		if blind(r) {
			d[r] = last[r]
		}
	}
	for range 4 {
		next := make(map[string]float64, len(regions))
		for _, r := range regions {
			if blind(r) {
				next[r] = last[r]
				continue
			}
			in := 0.0
			for _, rt := range routes {
				if rt.To == r {
					in += d[rt.From] * rt.Share
				}
			}
			next[r] = math.Max(0, served[r]-in) / (1 - out[r])
		}
		d = next
	}
	return d
}

// quantize rounds route shares to multiples of step (dropping routes that round to
// 0) and scales a region's shares down if rounding took their sum above 1.
func quantize(routes []failover.Route, step float64) []failover.Route {
	var out []failover.Route
	sum := map[string]float64{}
	for _, r := range routes {
		s := math.Round(r.Share/step) * step
		if s <= 0 {
			continue
		}
		r.Share = math.Min(s, 1)
		sum[r.From] += r.Share
		out = append(out, r)
	}
	for i := range out {
		if s := sum[out[i].From]; s > 1 {
			out[i].Share /= s
		}
	}
	return out
}

// within reports whether the router's routes (raw, and rounded) are the
// published ones up to one ShareStep: the same routes, each raw share within step
// of the published one. A share hovering around a rounding boundary then keeps
// its published value instead of republishing at every tick.
func within(rounded, raw, published []failover.Route, step float64) bool {
	type key struct {
		from, to string
		m        failover.Mechanism
	}
	if len(rounded) != len(published) {
		return false
	}
	pub := make(map[key]float64, len(published))
	for _, r := range published {
		pub[key{r.From, r.To, r.Mechanism}] = r.Share
	}
	for _, r := range rounded {
		if _, ok := pub[key{r.From, r.To, r.Mechanism}]; !ok {
			return false
		}
	}
	for _, r := range raw {
		if s, ok := pub[key{r.From, r.To, r.Mechanism}]; ok && math.Abs(r.Share-s) > step*(1+1e-9) {
			return false
		}
	}
	return true
}

// sortedDraining returns the RESP addresses of the draining gateways, sorted.
func (p *Plane) sortedDrainingLocked() []string {
	var out []string
	for _, id := range p.order {
		if h := p.hosts[id]; h.draining(p.cfg.DrainAfter) {
			out = append(out, h.gw.RESP)
		}
	}
	sort.Strings(out)
	return out
}
