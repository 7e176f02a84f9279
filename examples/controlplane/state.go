package controlplane

import (
	"maps"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/tierkit/tierkit/balancer"
	"github.com/tierkit/tierkit/failover"
	"github.com/tierkit/tierkit/rollout"
)

// State is a snapshot of the plane, as GET /api/state serves it and the dashboard
// draws it.
type State struct {
	Now     time.Time `json:"now"`     // the last tick's now (zero before the first)
	Tick    uint64    `json:"tick"`    // ticks done
	Version uint64    `json:"version"` // of the routes in force (1 from New on)
	// ChangeTag is the entity tag of the changes made through the API or the
	// Plane's methods (rollout, gateways added or removed, drains), which ticks
	// do not move: send it as If-Match with a change based on this State, and
	// the change is refused (412) if another was made since. See [Plane.Handler].
	ChangeTag string `json:"change_tag"`
	// CadenceMS is Config.Cadence in milliseconds.
	CadenceMS float64        `json:"cadence_ms"`
	Hosts     []HostState    `json:"hosts"`   // in the order the gateways were added
	Regions   []RegionState  `json:"regions"` // in Config.Regions order
	Tenants   []TenantState  `json:"tenants"` // by name; at most 1024, the first seen, of up to 256 bytes
	Rollout   rollout.Config `json:"rollout"`
	Draining  []string       `json:"draining"` // RESP addresses clients skip
	// History holds the last Config.History ticks, oldest first. The points' maps
	// are shared with the plane: read them, do not modify them.
	History []Point `json:"history"`
	Stats   Stats   `json:"stats"`
}

// HostState is one gateway as the plane sees it.
type HostState struct {
	Gateway
	Health    Health `json:"health"`
	Draining  bool   `json:"draining"`        // listed in the routes' Draining hosts
	Drained   bool   `json:"drained"`         // by an operator (Drain)
	DownTicks int    `json:"down_ticks"`      // polls in a row that found it unreachable; Config.DrainAfter of them drain it
	Error     string `json:"error,omitempty"` // the last poll's error
	// Weight is the published ring weight, Share the host's share of its region's
	// ring.
	Weight float64 `json:"weight"`
	Share  float64 `json:"share"`
	// CPU is the smoothed utilization (CPU seconds per second over Cores), RawCPU
	// the last tick's; both 0 until two polls succeeded.
	CPU    float64 `json:"cpu"`
	RawCPU float64 `json:"raw_cpu"`
	// Load is the balancer's normalized load (CPU over the region's mean, 0 without
	// signal), Reason its decision ("held", "lowered", ...).
	Load     float64 `json:"load"`
	Reason   string  `json:"reason"`
	Clamped  bool    `json:"clamped"`   // its weight change was cut by the balancer's per-run clamp
	InFlight int     `json:"in_flight"` // as the last good poll reported it
	Rate     float64 `json:"rate"`      // commands per second
	Shed     uint64  `json:"shed"`      // cumulative, as the gateway reports it
	ShedRate float64 `json:"shed_rate"` // per second
	Polls    uint64  `json:"polls"`     // polls made
	Failures uint64  `json:"failures"`  // of those, failed: unreachable or a bad state
	// Knobs are the gateway's control knobs as last polled (JSON text by name),
	// Changed those changed at runtime.
	Knobs   map[string]string `json:"knobs,omitempty"`
	Changed []string          `json:"changed,omitempty"`
}

// RegionState is one region's balancer classification and failover decision.
type RegionState struct {
	Name    string   `json:"name"`
	Backups []string `json:"backups,omitempty"`
	Hosts   int      `json:"hosts"`
	Up      int      `json:"up"` // gateways up and not draining
	// Class is the balancer's tier state ("steady-drift", "hot-outliers", ...),
	// Evidence its one-line account.
	Class         string          `json:"class"`
	Evidence      string          `json:"evidence"`
	Policy        balancer.Policy `json:"policy"`
	KeyspaceMoved float64         `json:"keyspace_moved"`
	// Phase is "local" or "spilling"; Signal the failover signal; Want, Out, In and
	// Unplaced the router's shares; Reason its one-line account.
	Phase    string          `json:"phase"`
	Signal   failover.Signal `json:"signal"`
	Want     float64         `json:"want"`
	Out      float64         `json:"out"` // published share sent away
	In       float64         `json:"in"`
	Unplaced float64         `json:"unplaced"`
	Reason   string          `json:"reason"`
	// Routes are the published routes leaving the region.
	Routes []failover.Route `json:"routes"`
	// Demand and Capacity are in cores: the CPU the region's own clients cause, and
	// the cores of its gateways not draining that have been measured (a gateway
	// that missed a poll, answered a bad state or restarted counts with its last
	// measurement: clients still route to it).
	Demand   float64 `json:"demand"`
	Capacity float64 `json:"capacity"`
}

// TenantState is one tenant over the whole tier.
type TenantState struct {
	Name        string  `json:"name"`
	Requests    uint64  `json:"requests"` // counted by the plane since it started
	Shed        uint64  `json:"shed"`
	RequestRate float64 `json:"request_rate"` // per second, last tick
	ShedRate    float64 `json:"shed_rate"`
}

// Point is one tick of history for the plots.
type Point struct {
	T       int64                  `json:"t"` // unix milliseconds
	Version uint64                 `json:"v"`
	Hosts   map[string]HostPoint   `json:"hosts"`
	Regions map[string]RegionPoint `json:"regions"`
	Shed    map[string]float64     `json:"shed"` // shed per second, per tenant that shed in the tick (absent: none)
}

// HostPoint is a gateway's weight share and CPU at one tick.
type HostPoint struct {
	Share float64 `json:"s"`
	CPU   float64 `json:"c"`
}

// RegionPoint is a region's published spill and signal at one tick.
type RegionPoint struct {
	Out       float64 `json:"out"`
	P         float64 `json:"p"` // the signal's percentile CPU
	Projected float64 `json:"proj"`
}

// Stats counts the plane's work.
type Stats struct {
	Ticks          uint64 `json:"ticks"`           // ticks done
	Polls          uint64 `json:"polls"`           // gateway polls folded into a tick
	PollErrors     uint64 `json:"poll_errors"`     // of those, failed
	Publications   uint64 `json:"publications"`    // versions published
	BalancerErrors uint64 `json:"balancer_errors"` // region balancer runs that failed (weights kept)
	FailoverErrors uint64 `json:"failover_errors"` // failover runs or tables that failed (routes kept)
	RingErrors     uint64 `json:"ring_errors"`     // rings not derived or not encoded (last routes kept)
	Added          uint64 `json:"added"`           // gateways added
	Removed        uint64 `json:"removed"`         // gateways removed
	Gateways       int    `json:"gateways"`        // gauge: gateways held
	Draining       int    `json:"draining"`        // gauge: of those, draining (by an operator or down)
	// SpillStarts, SpillEnds and RouteChanges are the failover router's
	// counters (failover.Stats), monotonic from New: every region's Local ->
	// Spilling and Spilling -> Local transitions, and its routes turned on or
	// off (a route is its ends and mechanism; a share change is none). They
	// count every run, published or not: a reader that samples the state
	// between ticks takes their difference to see what it did not sample.
	SpillStarts  uint64 `json:"spill_starts"`
	SpillEnds    uint64 `json:"spill_ends"`
	RouteChanges uint64 `json:"route_changes"`
}

// Stats returns a snapshot of the plane's counters.
func (p *Plane) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.statsLocked()
}

func (p *Plane) statsLocked() Stats {
	s := p.stats
	fs := p.router.Stats()
	s.SpillStarts, s.SpillEnds, s.RouteChanges = fs.SpillStarts, fs.SpillEnds, fs.RouteChanges
	s.Gateways = len(p.order)
	for _, id := range p.order {
		if p.hosts[id].draining(p.cfg.DrainAfter) {
			s.Draining++
		}
	}
	return s
}

// State returns a snapshot of the plane (the content of GET /api/state).
func (p *Plane) State() State {
	p.mu.Lock()
	defer p.mu.Unlock()
	pub := p.pub.Load() // publications happen under mu: consistent with the rest
	st := State{Now: p.lastTickAt, Tick: p.tick, Version: pub.version, CadenceMS: float64(p.cfg.Cadence) / 1e6,
		Rollout: cloneRollout(p.roll), Draining: slices.Clone(pub.draining), Stats: p.statsLocked()}
	st.ChangeTag = p.changeTagLocked()
	for _, id := range p.order {
		st.Hosts = append(st.Hosts, p.hostStateLocked(p.hosts[id]))
	}
	for i, reg := range p.cfg.Regions {
		st.Regions = append(st.Regions, p.regionStateLocked(i, reg))
	}
	names := make([]string, 0, len(p.tenants))
	for n := range p.tenants {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		t := p.tenants[n]
		st.Tenants = append(st.Tenants, TenantState{Name: n, Requests: t.requests, Shed: t.shed,
			RequestRate: t.reqRate, ShedRate: t.shedRate})
	}
	st.History = make([]Point, 0, len(p.history))
	st.History = append(st.History, p.history[p.histNext:]...)
	st.History = append(st.History, p.history[:p.histNext]...)
	return st
}

func (p *Plane) hostStateLocked(h *hostTrack) HostState {
	hs := HostState{Gateway: h.gw, Health: h.health, Draining: h.draining(p.cfg.DrainAfter), Drained: h.drained,
		DownTicks: h.downTicks, Error: h.err, Weight: h.weight, CPU: h.util, RawCPU: h.raw,
		Load: h.decision.Load, Clamped: h.decision.Clamped, InFlight: h.last.InFlight, Rate: h.rate,
		Shed: h.last.Shed, ShedRate: h.shed, Polls: h.polls, Failures: h.failures,
		Knobs: maps.Clone(h.last.Knobs), Changed: slices.Clone(h.last.Changed)}
	if h.decision.Reason != 0 {
		hs.Reason = h.decision.Reason.String()
	}
	if r := p.rings[h.gw.Region]; r != nil {
		hs.Share, _ = r.Share(h.gw.RESP)
	}
	return hs
}

func (p *Plane) regionStateLocked(i int, reg Region) RegionState {
	rs := RegionState{Name: reg.Name, Backups: slices.Clone(reg.Backups), Demand: p.demand[reg.Name],
		Capacity: p.capacity[reg.Name], Phase: failover.Local.String()}
	for _, id := range p.order {
		if h := p.hosts[id]; h.gw.Region == reg.Name {
			rs.Hosts++
			if h.health == HealthUp && !h.draining(p.cfg.DrainAfter) {
				rs.Up++
			}
		}
	}
	if res, ok := p.lastRes[reg.Name]; ok {
		rs.Class, rs.Evidence, rs.Policy, rs.KeyspaceMoved = res.State.String(), res.Evidence, res.Policy, res.KeyspaceMoved
	}
	if i < len(p.lastTable.Regions) {
		d := p.lastTable.Regions[i]
		rs.Phase, rs.Signal, rs.Want, rs.In, rs.Unplaced, rs.Reason = d.Phase.String(), finiteSignal(d.Signal), d.Want, d.In, d.Unplaced, d.Reason
	}
	rs.Routes = p.table.Out(reg.Name)
	for _, r := range rs.Routes {
		rs.Out += r.Share
	}
	return rs
}

// recordLocked appends the tick to the history.
func (p *Plane) recordLocked(now time.Time) {
	p.lastTickAt = now
	pt := Point{T: now.UnixMilli(), Version: p.pub.Load().version, Hosts: map[string]HostPoint{},
		Regions: map[string]RegionPoint{}, Shed: map[string]float64{}}
	for _, id := range p.order {
		h := p.hosts[id]
		var share float64
		if r := p.rings[h.gw.Region]; r != nil {
			share, _ = r.Share(h.gw.RESP)
		}
		pt.Hosts[id] = HostPoint{Share: share, CPU: h.util}
	}
	for i, reg := range p.cfg.Regions {
		var rp RegionPoint
		for _, r := range p.table.Out(reg.Name) {
			rp.Out += r.Share
		}
		if i < len(p.lastTable.Regions) {
			sig := finiteSignal(p.lastTable.Regions[i].Signal)
			rp.P, rp.Projected = sig.P, sig.Projected
		}
		pt.Regions[reg.Name] = rp
	}
	for n, t := range p.tenants {
		if t.shedRate != 0 { // most tenants shed nothing: at 1,024 of them and 300 points, zeros were most of the state's 5 MB
			pt.Shed[n] = t.shedRate
		}
	}
	if len(p.history) < p.cfg.History {
		p.history = append(p.history, pt)
		return
	}
	p.history[p.histNext] = pt
	p.histNext = (p.histNext + 1) % p.cfg.History
}

// finiteSignal caps the infinite figures of a region with demand and no capacity
// (JSON has no infinity) at maxFigure.
func finiteSignal(s failover.Signal) failover.Signal {
	for _, x := range []*float64{&s.Mean, &s.P, &s.HotShare, &s.Home, &s.Trend, &s.Projected} {
		switch {
		case math.IsNaN(*x):
			*x = 0
		case *x > maxFigure:
			*x = maxFigure
		case *x < -maxFigure:
			*x = -maxFigure
		}
	}
	return s
}

// maxFigure stands for an infinite signal in the state.
const maxFigure = 1e6
