package main

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/tierkit/tierkit/examples/client"
	"github.com/tierkit/tierkit/rollout"
)

// noisyTenant lowers every gateway's capacity (admission limit 2 commands,
// 25 ms added per backend call: about 80 commands/s per gateway, against
// about 20/s of the other tenants' load), then has one tenant flood from
// both regions.
// Its excess must be shed on every gateway offered more than 1.25 times its
// capacity, and in every region, while the other tenants see no shed and no
// failure, and keep their throughput.
func noisyTenant(ctx context.Context, c *Cluster, r *Report) (err error) {
	const limit, delay, flood = minLimit, 25 * time.Millisecond, 300.0
	if len(c.Tenants) < 2 { // one to flood, others to stay unharmed
		return fmt.Errorf("noisy-tenant needs at least 2 tenants, the cluster has %d", len(c.Tenants))
	}
	noisy := c.Tenants[0]
	// The knobs are set back as found (not to the gateway's defaults: a
	// gateway given with -gateway may have others).
	saved, err := c.readKnobs(ctx, c.Gateways, "aimd.max", "chaos.burn_us", "chaos.delay_us", "shed.queue_deadline", "shed.max_queue")
	if err != nil {
		return err
	}
	// Each tenant's queue holds at most 4 requests per gateway (shed.max_queue;
	// default 1024), so a flood is shed as soon as its queue is full rather
	// than slowed down; the queue deadline (default 100 ms) is raised to
	// 1 s so that a stall of a gateway process on the shared machine does
	// not shed a tenant under its share.
	// The baseline CPU burn per command is off: the flood would cost the
	// shared machine a core.
	// The restore is set up before the change: a change that fails on one
	// gateway has still been applied on the others.
	defer func() {
		for _, t := range c.Tenants[1:] {
			c.Load.SetRate(t, "", c.Spec.Rate)
		}
		c.Load.SetRate(noisy, "", c.Spec.Rate)
		rerr := c.restoreKnobs(context.WithoutCancel(ctx), c.Gateways, "noisy-tenant: restore", saved)
		if err == nil {
			err = rerr
		}
	}()
	if err := c.SetKnobs(ctx, c.Gateways, "noisy-tenant: a small tier", "aimd.max", limit, "chaos.burn_us", 0,
		"chaos.delay_us", int(delay/time.Microsecond), "shed.queue_deadline", time.Second, "shed.max_queue", 4); err != nil {
		return err
	}
	// The other tenants send half their usual rate: about 20 requests/s
	// per gateway, a quarter of the reduced capacity, so that the flood,
	// not the others, is what exceeds it.
	for _, t := range c.Tenants[1:] {
		c.Load.SetRate(t, "", c.Spec.Rate/2)
	}
	// The other tenants' shed and failed requests count at any time until
	// the restore, not only in the windows below: also while the gateways'
	// states are read, and from the flood's end on.
	from := c.Load.Snapshot()
	calm, err := measure(ctx, c, 1500*time.Millisecond)
	if err != nil {
		return err
	}
	r.figure("calm, reduced capacity: %d requests, %d shed, %d failed", calm.All().Total(), calm.All().Shed, calm.All().Failed)
	r.check(calm.All().Shed == 0 && calm.All().Failed == 0, "before the flood nobody is shed or fails (got %+v; last error %v)", calm.All(), firstErr(calm))

	before, err := c.Hosts(ctx)
	if err != nil {
		return err
	}
	c.Load.SetRate(noisy, "", flood)
	win, err := measure(ctx, c, 3*time.Second)
	if err != nil {
		return err
	}
	c.Load.SetRate(noisy, "", c.Spec.Rate)

	checkFloodWindow(c, r, noisy, calm, win)
	after, err := c.Hosts(ctx)
	if err != nil {
		return err
	}
	capacity := float64(limit) / delay.Seconds() // commands/s
	sheds := checkFloodShed(c, r, noisy, capacity, before, after)
	r.figure("the flooding tenant's requests shed per gateway (no other tenant's), of all the requests offered to the gateway: %v", sheds)
	checkOthersUnharmed(c, r, c.Load.Snapshot().Sub(from))
	return nil
}

// checkFloodWindow checks noisy-tenant's flood window against its calm one:
// the flooding tenant is shed, the others are not and keep their throughput.
func checkFloodWindow(c *Cluster, r *Report, noisy string, calm, win Snapshot) {
	nc := win.Tenant(noisy)
	r.figure("flood: %s sent %d requests in %.1f s (%.0f/s), %d shed (%.0f%%), %d failed", noisy, nc.Total(), win.Seconds(),
		float64(nc.Total())/win.Seconds(), nc.Shed, 100*share(nc.Shed, nc.Total()), nc.Failed)
	r.check(share(nc.Shed, nc.Total()) >= 0.10, "the flooding tenant is shed (>= 10%% of its requests; got %.1f%%)", 100*share(nc.Shed, nc.Total()))
	var others Counts
	for _, t := range c.Tenants[1:] {
		tc := win.Tenant(t)
		others = others.add(tc)
		r.check(tc.Shed == 0 && tc.Failed == 0, "tenant %s: zero shed and zero failed during the flood (got %d shed, %d failed)", t, tc.Shed, tc.Failed)
	}
	calmOthers := uint64(0)
	for _, t := range c.Tenants[1:] {
		calmOthers += calm.Tenant(t).OK
	}
	// Rates per second over each window as measured (1.5 s and 3 s, and the
	// time taken to read the load's counters).
	calmRate, floodRate := float64(calmOthers)/calm.Seconds(), float64(others.OK)/win.Seconds()
	r.figure("other %d tenants: %.0f ok/s calm, %.0f ok/s during the flood, %d shed, %d failed",
		len(c.Tenants)-1, calmRate, floodRate, others.Shed, others.Failed)
	// The load generator shares the loaded machine with the flood it sends,
	// so the bound is loose: it catches a tier that starves the others, not
	// a generator that slows down.
	r.check(floodRate >= 0.5*calmRate, "the other tenants keep >= 50%% of their calm throughput (%.0f/s against %.0f/s)", floodRate, calmRate)
}

// checkOthersUnharmed checks that no tenant but the flooding one (the first)
// was shed or failed over the whole scenario.
func checkOthersUnharmed(c *Cluster, r *Report, whole Snapshot) {
	var all Counts
	lastErr := "none"
	for _, t := range c.Tenants[1:] {
		all = all.add(whole.Tenant(t))
		for _, reg := range c.Spec.Regions {
			if e, ok := whole.LastErr[t+"/"+reg]; ok {
				lastErr = e
			}
		}
	}
	r.check(all.Shed == 0 && all.Failed == 0, "the other tenants: zero shed and zero failed from the calm window to the restore (got %d shed, %d failed of %d; last error %v)",
		all.Shed, all.Failed, all.Total(), lastErr)
}

// rolloutRamp ramps the rollout flag 0 -> 50 -> 100% of keys onto the gateway
// tier, measuring the share of requests that take the gateway path at each
// step, then flips the kill switch: every client sends everything direct as
// soon as it has the new routes. No request may fail at any time of the
// scenario: in its measurement windows, and while the clients move to new
// routes between them and at the restore.
func rolloutRamp(ctx context.Context, c *Cluster, r *Report) (err error) {
	from := c.Load.Snapshot()
	defer func() { // after the restore below
		if err == nil {
			whole := c.Load.Snapshot().Sub(from)
			a := whole.All()
			r.check(a.Failed == 0, "no request fails from the first route change to the restore (got %d of %d; last error %v)", a.Failed, a.Total(), firstErr(whole))
		}
	}()
	defer func() { // a restore that fails fails the scenario: the next would run on other routes
		rerr := c.Plane.SetRollout(rampConfig(100, false))
		if rerr == nil {
			rerr = c.WaitRoutes(context.WithoutCancel(ctx), 5*time.Second, rolloutIs(100, false))
		}
		if err == nil && rerr != nil {
			err = fmt.Errorf("rollout: restore: %w", rerr)
		}
	}()
	const window = 2 * time.Second
	for _, p := range []float64{0, 50, 100} {
		if err := rolloutStep(ctx, c, r, p, window); err != nil {
			return err
		}
	}
	return rolloutKill(ctx, c, r, window)
}

// rolloutIs reports whether a client's routes carry the ramp's rollout at p
// percent with the kill switch set to kill.
func rolloutIs(p float64, kill bool) func(client.Routes) bool {
	return func(rt client.Routes) bool {
		if rt.Rollout == nil {
			return false
		}
		cfg := rt.Rollout.Config()
		return cfg.Kill == kill && len(cfg.Rules) == 1 && cfg.Rules[0].Percent == p
	}
}

// rolloutStep is one step of the ramp: it sends p percent of keys to the
// gateway, waits for every client to have the routes, then measures a window
// and checks that the gateway path's share of requests is the keyspace's.
func rolloutStep(ctx context.Context, c *Cluster, r *Report, p float64, window time.Duration) error {
	if err := c.Plane.SetRollout(rampConfig(p, false)); err != nil {
		return err
	}
	start := time.Now()
	if err := c.WaitRoutes(ctx, 10*time.Second, rolloutIs(p, false)); err != nil {
		return fmt.Errorf("rollout %v%%: clients did not get the routes: %w", p, err)
	}
	took := time.Since(start)
	w, err := measure(ctx, c, window)
	if err != nil {
		return err
	}
	a := w.All()
	got := share(a.Gateway, a.Gateway+a.Direct)
	r.figure("rollout %3.0f%%: every client had it after %v; %.3f of %d requests on the gateway path, %d failed",
		p, took.Round(time.Millisecond), got, a.Gateway+a.Direct, a.Failed)
	// Keys are drawn uniformly from each tenant's keyspace and every
	// stream sends at the same rate, so the number of requests on the
	// gateway path is binomial around the share of the keyspace the rule
	// takes (computed exactly: 0.506 of the 12,000 keys at 50%). Allow 4
	// standard deviations: the check runs in every CI run, and at 3 a
	// correct client fails one run in a few hundred.
	want, err := keyShare(c, p)
	if err != nil {
		return err
	}
	n := float64(a.Gateway + a.Direct)
	tol := 4 * math.Sqrt(want*(1-want)/max(n, 1))
	r.check(math.Abs(got-want) <= tol, "at %v%% the gateway share is %.3f +- %.3f (the keyspace's share, 4 sd; got %.3f)", p, want, tol, got)
	r.check(a.Failed == 0, "at %v%% no request fails (got %d; last error %v)", p, a.Failed, firstErr(w))
	r.check(a.Total() > 0, "at %v%% requests flow", p)
	return nil
}

// rolloutKill flips the kill switch and checks that it reaches every client
// within its bound and that everything then goes direct, with no failure.
func rolloutKill(ctx context.Context, c *Cluster, r *Report, window time.Duration) error {
	start := time.Now()
	if err := c.Plane.SetRollout(rampConfig(100, true)); err != nil {
		return err
	}
	if err := c.WaitRoutes(ctx, 10*time.Second, rolloutIs(100, true)); err != nil {
		return fmt.Errorf("kill switch: clients did not get the routes: %w", err)
	}
	took := time.Since(start)
	w, err := measure(ctx, c, window)
	if err != nil {
		return err
	}
	a := w.All()
	r.figure("kill switch: every client had it after %v; then %d of %d requests on the gateway path, %d failed",
		took.Round(time.Millisecond), a.Gateway, a.Gateway+a.Direct, a.Failed)
	bound := 4*c.Spec.Follow + 2*c.Spec.Cadence
	r.check(took <= bound, "the kill switch reaches every client within %v (got %v)", bound, took)
	r.check(a.Gateway == 0 && a.Direct > 0, "after the kill switch everything goes direct (got %d gateway, %d direct)", a.Gateway, a.Direct)
	r.check(a.Failed == 0, "no request fails after the kill switch (got %d; last error %v)", a.Failed, firstErr(w))
	return nil
}

// killedGateway kills (SIGKILL) one gateway process while the load runs.
// Requests that were on it fail at the connection level and are retried once
// on the next host of their key; the host is ejected, so later requests go to
// the next host up front. No request may fail, and the region's clients'
// retries stay within the budget (killedRetryBudget): the requests in flight
// on the victim when it died, plus per client two for the first requests
// that find it dead and one each time its ejection lapses before the plane
// drops the host.
func killedGateway(ctx context.Context, c *Cluster, r *Report) error {
	region := c.Spec.Regions[0]
	victim := c.RegionGateways(region)[0]
	calmFrom := c.Load.Snapshot()
	calmSpill := newSpillMean(c, region)
	if !calmSpill.wait(ctx, time.Second) {
		return ctx.Err()
	}
	beforeHosts := c.Load.Snapshot()
	calm := beforeHosts.Sub(calmFrom)
	calmOut := calmSpill.mean()
	spill := newSpillMean(c, region)
	r.check(calm.All().Failed == 0, "before the kill nothing fails (got %d)", calm.All().Failed)
	victim.killed = true
	inFlight := c.Load.InFlight(region, victim.RESP)
	victim.kill()
	killed := time.Now()
	r.figure("killed %s (%s) with SIGKILL", victim.ID, victim.RESP)

	// The plane notices the dead host (its state poll fails) and stops
	// publishing it; until then the clients' ejection keeps it skipped.
	dropped := 5 * time.Second // unless it is seen sooner
	err := poll(ctx, dropped, 10*time.Millisecond, func() (bool, error) {
		spill.read()
		rt, _ := c.Plane.Routes()
		ring := rt.Gateways[region]
		if ring != nil && ring.Contains(victim.RESP) && !slices.Contains(rt.Draining, victim.RESP) {
			return false, nil
		}
		dropped = time.Since(killed)
		return true, nil
	})
	r.check(err == nil, "the plane stops routing to the dead host within 5 s")
	if err == nil {
		r.figure("the plane stopped routing to it after %v", dropped.Round(time.Millisecond))
	}
	if !spill.wait(ctx, 2*time.Second) { // keep measuring after the plane's change
		return ctx.Err()
	}
	end := c.Load.Snapshot()
	w := end.Sub(beforeHosts)
	a := w.All()
	// The budget is the region's clients': the other regions' clients send
	// to the victim only while their region spills, and their retries
	// are not the region's.
	retried := w.Region(region).Retried
	clients := len(c.Tenants) // the region's clients: one per tenant
	lapses := killedLapses(dropped, c.Spec.Follow, c.Load.ejectFor())
	budget := killedRetryBudget(inFlight, clients, lapses)
	r.figure("%.1f s from the kill: %d requests, %d failed, %d retried by %s's clients (budget %d: %d in flight on %s at the kill, %d per client of the region), %d by the other regions'",
		time.Since(killed).Seconds(), a.Total(), a.Failed, retried, region, budget, inFlight, victim.ID, 2+lapses, a.Retried-retried)
	r.check(a.Failed == 0, "no request fails beyond its retry (got %d failed; last error %v)", a.Failed, firstErr(w))
	r.check(retried <= budget, "retries within the budget of %d: %d in flight at the kill, %d per client of the region (%d clients): got %d",
		budget, inFlight, 2+lapses, clients, retried)
	took := checkTakeover(r, takeoverWindow{calm, calmOut}, takeoverWindow{w, spill.mean()}, victim, c.RegionGateways(region)[1:])
	r.figure("attempts on the region's other hosts since the kill: %s", took)
	return nil
}

// killedRetryBudget is how many retries the region's clients may send after
// its host dies: each request in flight on it then (inFlight, failed by the
// death); per client (clients), the first request sent to it after the death
// and one more sent before that one's failure ejected the host (2, the
// budget's margin); and per client one more each time the ejection lapses
// while the client's routes still hold the host (lapses).
func killedRetryBudget(inFlight, clients, lapses int) uint64 {
	return uint64(inFlight + clients*(2+lapses))
}

// killedLapses returns how many times a client's ejection of a dead host
// (ejectFor long, from the host's first failure, at the death or later) can
// lapse before the client's routes drop the host: the plane dropped it
// dropped after the death, and a client polls the plane's routes every follow
// (one more period for the poll's own time).
func killedLapses(dropped, follow, ejectFor time.Duration) int {
	if ejectFor <= 0 {
		return 0
	}
	return int((dropped + 2*follow) / ejectFor)
}

// takeoverWindow is a window of the load's counts and the share of the
// region's keys that the plane sent to other regions over it (a spillMean).
type takeoverWindow struct {
	counts Snapshot
	spill  float64
}

// checkTakeover checks that the region's other hosts took over part of the
// killed victim's load: each has attempts of the region's clients after the
// kill, and their share of the region's clients' attempts that the plane
// kept in the region rose over their share before it by at least a quarter
// of the victim's share before it (all of it moves when every request of
// the victim's keys goes to their next host; a quarter leaves room for the
// noise of the windows). Each host has attempts of its own keys whatever
// became of the victim's, so attempts alone do not show a takeover.
//
// The shares are of attempts, not per second: on a loaded machine the load
// generator may fall behind its pace after the kill, and the survivors' rate
// then stays flat although they serve every key of the victim. Nor are they
// per request: a request is counted when it ends and an attempt when it is
// sent, so a window's two counts differ by the requests in flight at its
// ends, more as requests slow down.
//
// Two survivors serving the region's load run hotter, and the plane's
// failover may then spill part of the region's keys to another region. The
// client picks the spilled keys by a hash independent of their ring owner,
// so the spill takes the same share of every host's keys, and of the
// region's attempts the survivors can get at most the share the plane kept
// home: on a loaded machine such a spill failed the check although the
// survivors served every key of the victim that stayed home
// (TestKilledGatewayTakeoverSpill). Each share is therefore divided by the
// share kept home over its window (1 - spill). A victim's keys sent to
// another region while the plane published no spill still fail the check.
// calm is the window before the kill, since the window from it. It returns
// the figure.
func checkTakeover(r *Report, calm, since takeoverWindow, victim *gatewayProc, others []*gatewayProc) string {
	region := victim.Region
	before, after := calm.counts.Hosts[region], since.counts.Hosts[region]
	var counts []string
	var was, now uint64
	for _, g := range others {
		counts = append(counts, fmt.Sprintf("%s %d", g.ID, after[g.RESP]))
		r.check(after[g.RESP] > 0, "the next host %s took over part of the load", g.ID)
		was += before[g.RESP]
		now += after[g.RESP]
	}
	wasShare, lost := homeShare(was, before, calm.spill), homeShare(before[victim.RESP], before, calm.spill)
	nowShare := homeShare(now, after, since.spill)
	r.check(lost > 0 && nowShare-wasShare >= lost/4,
		"the other hosts take over the load of %s: their share of %s's clients' attempts kept in %s rises by >= a quarter of its %.0f%% (got %.0f%% before the kill, %.0f%% after)",
		victim.ID, region, region, 100*lost, 100*wasShare, 100*nowShare)
	home := append([]*gatewayProc{victim}, others...)
	return fmt.Sprintf("%s: their share of the attempts of %s's clients kept in %s %.0f%% after the kill (retries included) against %.0f%% before; %s had %.0f%% before; the plane sent %.0f%% of %s's keys out of %s after the kill (%.0f%% before), and %s's clients %.0f%% of their attempts (%.0f%% before)",
		strings.Join(counts, " "), region, region, 100*nowShare, 100*wasShare, victim.ID, 100*lost,
		100*since.spill, region, region, 100*calm.spill, region, 100*awayShare(after, home), 100*awayShare(before, home))
}

// homeShare is part's share of all the attempts in hosts (one region's
// clients' attempts per host), divided by keep = 1 - spill, the share of the
// region's keys the plane kept home; 0 when it kept none.
func homeShare(part uint64, hosts map[string]uint64, spill float64) float64 {
	keep := 1 - spill
	if keep <= 0 {
		return 0
	}
	var all uint64
	for _, n := range hosts {
		all += n
	}
	return share(part, all) / keep
}

// awayShare is the share of the attempts in hosts sent to hosts not in home.
func awayShare(hosts map[string]uint64, home []*gatewayProc) float64 {
	var away, all uint64
	for addr, n := range hosts {
		all += n
		if !slices.ContainsFunc(home, func(g *gatewayProc) bool { return g.RESP == addr }) {
			away += n
		}
	}
	return share(away, all)
}

// spillMean is the time-weighted mean, from its start to its last reading,
// of the share of region's keys that the plane's published failover table
// sends to other regions: the share of the region's requests its clients
// send there (the client picks them by key hash), a follow period late.
// A reading's share holds until the next reading.
type spillMean struct {
	c           *Cluster
	region      string
	start, last time.Time
	share       float64 // the last reading's
	sum         float64 // share x seconds up to last
}

func newSpillMean(c *Cluster, region string) *spillMean {
	s := &spillMean{c: c, region: region, start: time.Now()}
	s.last = s.start
	s.share = s.published()
	return s
}

// read reads the plane's published share now.
func (s *spillMean) read() {
	now := time.Now()
	s.sum += s.share * now.Sub(s.last).Seconds()
	s.last = now
	s.share = s.published()
}

// wait reads the published share every 10 ms for d; false when ctx ended.
func (s *spillMean) wait(ctx context.Context, d time.Duration) bool {
	end := time.Now().Add(d)
	for {
		s.read()
		left := time.Until(end)
		if left <= 0 {
			return true
		}
		if !sleepCtx(ctx, min(left, 10*time.Millisecond)) {
			return false
		}
	}
}

// mean reads the published share once more and returns the mean since start.
func (s *spillMean) mean() float64 {
	s.read()
	if span := s.last.Sub(s.start).Seconds(); span > 0 {
		return s.sum / span
	}
	return s.share
}

// published is the share of the region's keys the plane's routes send out
// of it now.
func (s *spillMean) published() float64 {
	rt, _ := s.c.Plane.Routes()
	if rt.Failover == nil {
		return 0
	}
	var out float64
	for _, route := range rt.Failover.Out(s.region) {
		out += route.Share
	}
	return min(max(out, 0), 1)
}

func firstErr(s Snapshot) string {
	for _, e := range s.LastErr {
		return e
	}
	return "none"
}

// checkFloodShed checks, between the gateways' host states before and after,
// that the flooding tenant was shed on every gateway offered more than 1.25
// times capacity (commands/s), in every region, and that no gateway shed
// another tenant. It returns a figure per gateway. The flood follows the ring,
// so a gateway with a small share of it may have had room for all of it.
// A gateway's rate is over the time between its two states, on its own clock
// (their uptimes): the readings of every gateway's state, each retried for up
// to 2 s, fall between them as well as the flood's window. A gateway without
// both states (Hosts skips one that is not running: it died, which fails the
// scenario by itself) is not measured and counts for no check: its counts
// less those of before, in uint64, would wrap to a huge shed.
func checkFloodShed(c *Cluster, r *Report, noisy string, capacity float64, before, after map[string]HostState) []string {
	var sheds []string
	regionShed := map[string]uint64{}
	for _, g := range c.Gateways {
		a, aok := after[g.ID]
		b, bok := before[g.ID]
		if !aok || !bok {
			sheds = append(sheds, g.ID+" not measured (not running)")
			continue
		}
		d := a.Tenants[noisy].Shed - b.Tenants[noisy].Shed
		var offered uint64
		for name, t := range a.Tenants {
			offered += t.Requests - b.Tenants[name].Requests
		}
		rate := float64(offered) / max(a.UptimeSeconds-b.UptimeSeconds, 1e-9)
		sheds = append(sheds, fmt.Sprintf("%s shed %d of %d offered (%.0f/s)", g.ID, d, offered, rate))
		regionShed[g.Region] += d
		if rate > 1.25*capacity {
			r.check(d > 0, "gateway %s, offered %.0f/s against a capacity of about %.0f/s, shed the flooding tenant; it shed none of it", g.ID, rate, capacity)
		}
		r.check(a.Shed-b.Shed == d, "gateway %s shed only the flooding tenant (%d shed in all, %d of them %s)", g.ID, a.Shed-b.Shed, d, noisy)
	}
	for _, reg := range c.Spec.Regions {
		r.check(regionShed[reg] > 0, "the flood is shed in region %s too", reg)
	}
	return sheds
}

// rampConfig is the rollout of the rollout scenario: one rule sending percent
// p of the service's keys through the gateways, and the kill switch.
func rampConfig(p float64, kill bool) rollout.Config {
	return rollout.Config{Rules: []rollout.Rule{{Service: service, Percent: p}}, Kill: kill}
}

// keyShare is the share of the load's keyspace (every tenant's keys, as
// Load draws them) that a rollout rule at percent p sends on the gateway path.
func keyShare(c *Cluster, p float64) (float64, error) {
	f, err := rollout.New(rampConfig(p, false))
	if err != nil {
		return 0, err
	}
	spec := c.loadSpec()
	use, all := 0, 0
	for _, t := range c.Tenants {
		for k := range spec.Keys {
			if f.Use(rollout.Query{Service: service, Key: loadKey(t, k)}) {
				use++
			}
			all++
		}
	}
	return float64(use) / float64(max(all, 1)), nil
}
