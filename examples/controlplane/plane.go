package controlplane

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/tierkit/tierkit/balancer"
	"github.com/tierkit/tierkit/examples/client"
	"github.com/tierkit/tierkit/failover"
	"github.com/tierkit/tierkit/hashring"
	"github.com/tierkit/tierkit/rollout"
)

// Plane is the control plane of a gateway tier: it polls every gateway, runs a
// balancer per region and the failover router, and publishes host weights and
// region routes for thin clients. See the package doc.
//
// It is safe for concurrent use. Ticks are serialized; reads ([Plane.Routes],
// [Plane.State], the HTTP handler) never wait for a tick's polls. It starts no
// goroutine of its own outside [Plane.Run] and [Plane.Tick] (which joins its poll
// goroutines before returning). A Plane must not be copied after first use.
type Plane struct {
	cfg     Config // with defaults; Regions, Direct, Gateways and AllowedHosts read-only after New
	regions map[string]bool
	epoch   int64 // distinguishes this plane's versions from an earlier process's

	tickMu sync.Mutex // serializes ticks: one poll + decide + publish at a time

	mu sync.Mutex
	// protected by mu
	hosts         map[string]*hostTrack // by gateway ID
	order         []string              // gateway IDs in the order they were added
	balancers     map[string]*balancer.Balancer
	lastRes       map[string]balancer.Result // last balancer result per region
	router        *failover.Router
	lastTable     failover.Table     // the router's last table (signals, reasons)
	routerStarted bool               // the warm-up is over (see failoverLocked)
	demand        map[string]float64 // last demand estimate per region, in cores
	capacity      map[string]float64 // last capacity per region, in cores
	rings         map[string]*hashring.Ring
	unpublished   bool           // the last publication failed: rings may be ahead of pub
	table         failover.Table // the published routes (quantized)
	roll          rollout.Config
	flags         *rollout.Flags
	rollGen       uint64 // bumped by every accepted SetRollout
	changes       uint64 // accepted changes, for the change tag (see changeTagLocked)
	tenants       map[string]*tenantTrack
	history       []Point // ring buffer of Config.History points
	histNext      int
	tick          uint64
	lastTickAt    time.Time
	stats         Stats

	pub atomic.Pointer[published]
}

// published is one immutable publication.
type published struct {
	routes   client.Routes
	version  uint64
	rollGen  uint64
	draining []string
	wire     []byte // the /api/routes document
	etag     string
}

// New returns a Plane for cfg with every configured gateway at a capacity-scaled
// weight (its cores over the median cores of its region, within the balancer's
// MinWeight and MaxWeight) and the routes published
// at version 1, before any poll. Errors wrap [ErrInvalidConfig], or are a
// *GatewayError, or come from balancer's, failover's and rollout's config
// validation (wrapping their ErrInvalidConfig).
func New(cfg Config) (*Plane, error) {
	c := cfg.withDefaults()
	if err := c.validate(); err != nil {
		return nil, err
	}
	c.Regions = slices.Clone(c.Regions)
	c.Direct = slices.Clone(c.Direct)
	c.Gateways = slices.Clone(c.Gateways)
	c.AllowedHosts = slices.Clone(c.AllowedHosts)
	router, err := failover.New(c.failoverConfig())
	if err != nil {
		return nil, err
	}
	flags, err := newFlags(c.Rollout)
	if err != nil {
		return nil, err
	}
	p := &Plane{
		cfg: c, regions: map[string]bool{}, epoch: time.Now().UnixNano(),
		hosts: map[string]*hostTrack{}, balancers: map[string]*balancer.Balancer{},
		lastRes: map[string]balancer.Result{}, router: router, demand: map[string]float64{},
		capacity: map[string]float64{}, rings: map[string]*hashring.Ring{},
		roll: cloneRollout(c.Rollout), flags: flags, tenants: map[string]*tenantTrack{},
		history: make([]Point, 0, min(c.History, 64)),
	}
	for _, r := range c.Regions {
		p.regions[r.Name] = true
		b, err := balancer.New(c.Balancer)
		if err != nil {
			return nil, err
		}
		p.balancers[r.Name] = b
	}
	medCores := map[string][]float64{}
	for _, g := range c.Gateways {
		if err := p.checkNewLocked(g); err != nil {
			return nil, err
		}
		p.hosts[g.ID] = &hostTrack{gw: g, health: HealthUnknown}
		p.order = append(p.order, g.ID)
		medCores[g.Region] = append(medCores[g.Region], g.Cores)
	}
	bc := p.balancerConfig()
	for _, h := range p.hosts {
		// Within the balancer's bounds, as AddGateway: outside them its
		// first run would move the weight with no signal (a new version).
		h.weight = clampWeight(bc, h.gw.Cores/median(medCores[h.gw.Region])*bc.TargetMedian)
	}
	p.table = failover.Table{Now: time.Unix(0, 0).UTC()}
	p.rebaseLocked()
	p.publishLocked()
	return p, nil
}

// Run ticks at once and then every Config.Cadence until ctx ends, and returns nil
// then. A tick's failures (an unreachable gateway, a balancer input it rejects)
// are recorded in the state and its stats; they do not stop Run.
func (p *Plane) Run(ctx context.Context) error {
	t := time.NewTicker(p.cfg.Cadence)
	defer t.Stop()
	for {
		_ = p.Tick(ctx, time.Now())
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// Tick polls every gateway (concurrently, each within Config.PollTimeout), then
// at now updates each gateway's utilization and health, runs each region's
// balancer and the failover router, and publishes the routes if they changed. It
// is the deterministic entry point: with a [Poller] that answers from explicit
// samples, a sequence of Ticks is a pure function of the samples and the nows.
//
// It returns ctx.Err() (and changes nothing) when ctx ends during the polls;
// nothing else is an error: a gateway that cannot be polled is marked down.
func (p *Plane) Tick(ctx context.Context, now time.Time) error {
	p.tickMu.Lock()
	defer p.tickMu.Unlock()
	p.mu.Lock()
	gws := make([]Gateway, 0, len(p.order))
	for _, id := range p.order {
		gws = append(gws, p.hosts[id].gw)
	}
	p.mu.Unlock()
	results := p.pollAll(ctx, gws)
	if err := ctx.Err(); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.decideLocked(now, results)
	p.publishLocked()
	p.recordLocked(now)
	return nil
}

// pollResult is one gateway's poll outcome.
type pollResult struct {
	gw     Gateway
	sample Sample
	err    error
}

// pollAll polls gws with at most Config.PollConcurrency in flight and returns when
// every poll has finished.
func (p *Plane) pollAll(ctx context.Context, gws []Gateway) map[string]pollResult {
	out := make(map[string]pollResult, len(gws))
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, p.cfg.PollConcurrency)
	for _, g := range gws {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			pctx, cancel := context.WithTimeout(ctx, p.cfg.PollTimeout)
			s, err := p.cfg.Poller.Poll(pctx, g)
			cancel()
			if err == nil {
				err = s.check()
			}
			mu.Lock()
			out[g.ID] = pollResult{gw: g, sample: s, err: err}
			mu.Unlock()
		})
	}
	wg.Wait()
	return out
}

// SetRollout validates cfg and publishes it at once (a new version), including the
// kill switch. On error (one wrapping rollout.ErrInvalidConfig) the previous flags
// stay in force. Besides rollout's own checks, every string of cfg (services,
// prefixes, regions, salts) must be valid UTF-8: the routes document is JSON,
// which would replace the other bytes, and followers would decide otherwise than
// the plane.
func (p *Plane) SetRollout(cfg rollout.Config) error { return p.setRollout(cfg, "") }

// setRollout is SetRollout on the precondition ifMatch (see ifMatchLocked).
func (p *Plane) setRollout(cfg rollout.Config, ifMatch string) error {
	flags, err := newFlags(cfg)
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.ifMatchLocked(ifMatch); err != nil {
		return err
	}
	p.roll, p.flags = cloneRollout(cfg), flags
	p.rollGen++
	p.changes++
	p.publishLocked()
	return nil
}

// AddGateway adds g at a capacity-scaled weight (its cores times the median weight
// per core of its region's gateways, times the balancer's NewHostFactor) and
// publishes the routes at once; g is polled from the next tick. The median is over
// the gateways the balancer has run (not those added since its last run, which are
// weighted anew alike; with none, g and those take their cores over the median
// cores times TargetMedian, as at [New]), so the next run keeps the shares.
// Errors: a *GatewayError.
func (p *Plane) AddGateway(g Gateway) error { return p.addGateway(g, "") }

// addGateway is AddGateway on the precondition ifMatch (see ifMatchLocked).
func (p *Plane) addGateway(g Gateway, ifMatch string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.checkNewLocked(g); err != nil {
		return err
	}
	if err := p.ifMatchLocked(ifMatch); err != nil {
		return err
	}
	p.hosts[g.ID] = &hostTrack{gw: g, fresh: true, health: HealthUnknown}
	p.order = append(p.order, g.ID)
	p.placeFreshLocked(g.Region)
	p.stats.Added++
	p.changes++
	p.rebaseLocked()
	p.publishLocked()
	return nil
}

// placeFreshLocked weights the gateways of region added since its balancer's
// last run as that run places them (balancer's new hosts): their cores times
// the median weight per core of the region's other gateways, times
// NewHostFactor; with no other gateway, their cores over the median cores of
// the region times TargetMedian, the capacity weights of [New] (the shares the
// balancer gives them). All within MinWeight and MaxWeight. Weighted one by
// one against the gateways added before them, several added between two
// ticks took weights that the next run changed without a signal, moving keys.
func (p *Plane) placeFreshLocked(region string) {
	var perCore, cores []float64
	for _, id := range p.order {
		if h := p.hosts[id]; h.gw.Region == region {
			cores = append(cores, h.gw.Cores)
			if !h.fresh {
				perCore = append(perCore, h.weight/h.gw.Cores)
			}
		}
	}
	bc := p.balancerConfig()
	per := bc.TargetMedian / median(cores)
	if len(perCore) > 0 {
		per = median(perCore) * bc.NewHostFactor
	}
	for _, id := range p.order {
		if h := p.hosts[id]; h.gw.Region == region && h.fresh {
			h.weight = clampWeight(bc, h.gw.Cores*per)
		}
	}
}

// RemoveGateway removes the gateway id from the plane and from its region's ring,
// and publishes the routes at once (gateways added since the last tick are weighted
// anew, as by [Plane.AddGateway]). Drain it first (and wait for clients to follow)
// to move its traffic without failed attempts. Errors: [ErrUnknownGateway].
func (p *Plane) RemoveGateway(id string) error { return p.removeGateway(id, "") }

// removeGateway is RemoveGateway on the precondition ifMatch (see ifMatchLocked).
func (p *Plane) removeGateway(id, ifMatch string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.hosts[id]; !ok {
		return ErrUnknownGateway
	}
	if err := p.ifMatchLocked(ifMatch); err != nil {
		return err
	}
	region := p.hosts[id].gw.Region
	delete(p.hosts, id)
	p.order = slices.DeleteFunc(p.order, func(x string) bool { return x == id })
	p.placeFreshLocked(region)
	p.stats.Removed++
	p.changes++
	p.rebaseLocked()
	p.publishLocked()
	return nil
}

// Drain lists the gateway id in the routes' Draining hosts (clients stop sending it
// new requests) and keeps it in its ring, so undraining moves no keys. It is
// published at once. Errors: [ErrUnknownGateway].
func (p *Plane) Drain(id string) error { return p.setDrained(id, true, "") }

// Undrain reverses [Plane.Drain]. A gateway that fails its polls stays draining until
// a poll succeeds. Errors: [ErrUnknownGateway].
func (p *Plane) Undrain(id string) error { return p.setDrained(id, false, "") }

// setDrained drains (v) or undrains the gateway id on the precondition ifMatch
// (see ifMatchLocked). Only an actual change moves the change tag.
func (p *Plane) setDrained(id string, v bool, ifMatch string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	h, ok := p.hosts[id]
	if !ok {
		return ErrUnknownGateway
	}
	if err := p.ifMatchLocked(ifMatch); err != nil {
		return err
	}
	if h.drained != v {
		p.changes++
	}
	h.drained = v
	h.idled = h.idled || v // the next sample's interval includes time drained
	p.rebaseLocked()
	p.publishLocked()
	return nil
}

// Routes returns the routes in force and their version. The maps and slices are
// copies; the rings, table and flags are shared and immutable.
func (p *Plane) Routes() (client.Routes, uint64) {
	pub := p.pub.Load()
	r := pub.routes
	r.Gateways = make(map[string]*hashring.Ring, len(pub.routes.Gateways))
	for k, v := range pub.routes.Gateways {
		r.Gateways[k] = v
	}
	r.Direct = slices.Clone(r.Direct)
	r.Draining = slices.Clone(r.Draining)
	return r, pub.version
}

// Gateways returns the gateways the plane has, in the order they were added.
func (p *Plane) Gateways() []Gateway {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]Gateway, len(p.order))
	for i, id := range p.order {
		out[i] = p.hosts[id].gw
	}
	return out
}

func (p *Plane) checkNewLocked(g Gateway) error {
	if err := checkGateway(g, p.regions); err != nil {
		return err
	}
	if _, dup := p.hosts[g.ID]; dup {
		return &GatewayError{ID: g.ID, Reason: "duplicate ID", Err: ErrDuplicateGateway}
	}
	// Addresses compare by what they dial (addrKey), not as spelled: one
	// process given again as "127.0.0.1:06380" or "[0::1]:6381" is a
	// duplicate too.
	for _, h := range p.hosts {
		if addrKey(h.gw.RESP) == addrKey(g.RESP) {
			return &GatewayError{ID: g.ID, Reason: "RESP address " + g.RESP + " already used by " + h.gw.ID, Err: ErrDuplicateGateway}
		}
		// Polled at one address, both would read one process's state: the
		// other's CPU and death would go unseen.
		if addrKey(h.gw.HTTP) == addrKey(g.HTTP) {
			return &GatewayError{ID: g.ID, Reason: "HTTP address " + g.HTTP + " already used by " + h.gw.ID, Err: ErrDuplicateGateway}
		}
	}
	return nil
}

// balancerConfig returns the balancer Config in force (with balancer's defaults).
func (p *Plane) balancerConfig() balancer.Config {
	for _, b := range p.balancers {
		return b.Config()
	}
	return p.cfg.Balancer
}

// newFlags compiles cfg after checking that it survives the routes document: JSON
// replaces the bytes of a string that are not UTF-8 with U+FFFD, so a binary
// prefix or salt would reach followers changed (and two prefixes could become
// one, which no follower could decode).
func newFlags(cfg rollout.Config) (*rollout.Flags, error) {
	for i, r := range cfg.Rules {
		strs := append([]string{r.Service, r.Prefix, r.Salt}, r.Regions...)
		for _, s := range strs {
			if !utf8.ValidString(s) {
				return nil, fmt.Errorf("controlplane: rollout rule %d: %q is not UTF-8, which the routes document (JSON) cannot carry: %w",
					i, s, rollout.ErrInvalidConfig)
			}
		}
	}
	return rollout.New(cfg)
}

// clampWeight bounds w by the balancer's MinWeight and MaxWeight (relative to
// its TargetMedian).
func clampWeight(bc balancer.Config, w float64) float64 {
	return math.Min(math.Max(w, bc.MinWeight*bc.TargetMedian), bc.MaxWeight*bc.TargetMedian)
}

func cloneRollout(c rollout.Config) rollout.Config {
	c.Rules = slices.Clone(c.Rules)
	for i := range c.Rules {
		c.Rules[i].Regions = slices.Clone(c.Rules[i].Regions)
	}
	return c
}

// median returns the median of xs (0 for none).
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
	return (s[m-1] + s[m]) / 2
}
