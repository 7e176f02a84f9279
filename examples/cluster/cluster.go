package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/tierkit/tierkit/balancer"
	"github.com/tierkit/tierkit/examples/client"
	"github.com/tierkit/tierkit/examples/controlplane"
	"github.com/tierkit/tierkit/examples/internal/loophost"
	"github.com/tierkit/tierkit/failover"
	"github.com/tierkit/tierkit/rollout"
)

// Spec describes a cluster. Zero fields take the defaults of DefaultSpec.
type Spec struct {
	// Regions and their gateways: each region has Gateways processes named
	// region-1..region-N and backs up to the other regions in order.
	Regions  []string
	Gateways int // per region
	Shards   int // redis-server shards behind every gateway (and direct mode)
	Tenants  int // tenants t00..tNN, each with a client per region
	// Rate is each tenant's request rate per region (requests/s).
	Rate    float64
	Workers int // per tenant per region: requests in flight at most
	// Cores is each gateway's nominal capacity given to the plane. A gateway
	// runs with GOMAXPROCS=1 on a shared machine and serves a few dozen
	// requests/s, so a small nominal capacity turns its CPU use into a
	// utilization the balancer and failover can read.
	Cores float64
	// Burn is the CPU each command costs on every gateway, in microseconds
	// (the chaos.burn_us knob), as a heavier workload would: with it, a
	// gateway's utilization is mostly the work its traffic causes rather
	// than the measurement noise of an idle process (default 800 µs: 40
	// requests/s on a gateway of 0.1 core read as about 0.4). Start lowers
	// it on a host where a gateway's own cost per command is larger
	// (calibrateBurn); Cluster.Spec then holds the burn in force.
	Burn    int
	Cadence time.Duration // the plane's poll + decide period
	Follow  time.Duration // how often each client polls the plane's routes (>= controlplane.MinFollowPeriod)
	// HTTP is the plane's dashboard address, on loopback (another is
	// refused: the API has no authentication); "" picks a free loopback
	// port. It answers the Host names localhost, 127.0.0.1 and ::1 and its
	// own IP only.
	HTTP string
	// GatewayBin is a built gateway, a file: a relative path (a bare name
	// included) is from the working directory, not looked up in PATH; ""
	// builds one into the cluster's temporary directory.
	GatewayBin string
	// Logf receives progress lines; nil discards them.
	Logf func(format string, args ...any)
}

// DefaultSpec is 2 regions x 3 gateways, 2 shards, 12 tenants at 10
// requests/s per region each (240 requests/s in all, about 40 per gateway),
// 800 µs of CPU per command on gateways of 0.1 nominal core, a 400 ms plane
// cadence.
func DefaultSpec() Spec {
	return Spec{Regions: []string{"eu", "us"}, Gateways: 3, Shards: 2, Tenants: 12, Rate: 10, Workers: 32,
		Cores: 0.1, Burn: 800, Cadence: 400 * time.Millisecond, Follow: 100 * time.Millisecond}
}

func (s Spec) withDefaults() Spec {
	d := DefaultSpec()
	if len(s.Regions) == 0 {
		s.Regions = d.Regions
	}
	s.Gateways = or(s.Gateways, d.Gateways)
	s.Shards = or(s.Shards, d.Shards)
	s.Tenants = or(s.Tenants, d.Tenants)
	s.Rate = or(s.Rate, d.Rate)
	s.Workers = or(s.Workers, d.Workers)
	s.Cores = or(s.Cores, d.Cores)
	s.Burn = or(s.Burn, d.Burn)
	s.Cadence = or(s.Cadence, d.Cadence)
	s.Follow = or(s.Follow, d.Follow)
	if s.Logf == nil {
		s.Logf = func(string, ...any) {}
	}
	return s
}

// Bounds of the spec's flag-settable numbers. A cadence under 100 ms has the
// plane poll every gateway (GOMAXPROCS=1 on a shared machine, each allowed a
// whole cadence to answer) so often that late answers count as down, and the
// plane refuses one under 1 ms only after everything was built and started;
// over 1 s, the scenarios' fixed bounds (a killed gateway drained within 5 s,
// DrainAfter 3 ticks) are missed by design. The tenants are named t00..t99,
// and each starts Workers goroutines and a client per region: a huge count
// starts that many. Over 1000 requests/s per tenant and region (gateways
// serve a few dozen each) the pacing no longer paces: the workers' cap on
// requests in flight alone sets the load.
const (
	minCadence = 100 * time.Millisecond
	maxCadence = time.Second
	maxTenants = 100
	minRate    = 1
	maxRate    = 1000
)

// validate refuses a spec whose regions are not distinct, non-empty, plain names
// (a region named twice would start two gateways with one ID and one
// configuration file) or whose counts, rate or periods are out of range (a
// zero takes the default in withDefaults; a negative one was taken as is).
func (s Spec) validate() error {
	for _, c := range []struct {
		name, want string
		bad        bool
	}{
		{"Gateways", ">= 1", s.Gateways < 1}, {"Shards", ">= 1", s.Shards < 1},
		{"Tenants", fmt.Sprintf("1 to %d", maxTenants), s.Tenants < 1 || s.Tenants > maxTenants},
		{"Workers", ">= 1", s.Workers < 1},
		// A stream's first request goes one interval after the start, and
		// the warm-up waits 10 s for every stream's first answer.
		{"Rate", fmt.Sprintf("%d to %d", minRate, maxRate), !(s.Rate >= minRate && s.Rate <= maxRate)},
		{"Cores", "> 0", !(s.Cores > 0)}, {"Burn", ">= 0", s.Burn < 0},
		{"Cadence", fmt.Sprintf("%v to %v", minCadence, maxCadence), s.Cadence < minCadence || s.Cadence > maxCadence},
		// Follow refuses a period under its floor: every client would
		// then run without routes, and Start fail on them after 10 s.
		{"Follow", fmt.Sprintf(">= %v", controlplane.MinFollowPeriod), s.Follow < controlplane.MinFollowPeriod},
	} {
		if c.bad {
			return fmt.Errorf("cluster: %s out of range (want %s)", c.name, c.want)
		}
	}
	seen := map[string]bool{}
	for _, r := range s.Regions {
		switch {
		case r == "":
			return errors.New("cluster: empty region name")
		case seen[r]:
			return fmt.Errorf("cluster: region %q is named twice", r)
		case !plainName(r):
			return fmt.Errorf("cluster: region %q: want letters, digits, '-', '_' or '.', not first", r)
		}
		seen[r] = true
	}
	return nil
}

// plainName reports whether a region name is safe where the cluster puts it:
// in a gateway's ID and its configuration file's name (a "/" or a leading "."
// would place the file outside the cluster's directory) and in the load's
// per-stream keys, tenant + "/" + region (a "/" in it would count its clients
// in another region as well).
func plainName(r string) bool {
	for i, c := range r {
		ok := c == '-' || c == '_' || (c == '.' && i > 0) ||
			('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
		if !ok {
			return false
		}
	}
	return true
}

func or[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// Cluster is a running tier: redis-server shards, gateway processes per
// region, the control plane (in process) with its dashboard, and the load.
type Cluster struct {
	Spec     Spec
	Shards   []string
	Gateways []*gatewayProc
	Tenants  []string
	Plane    *controlplane.Plane
	PlaneURL string // http://host:port of the dashboard and API
	Load     *Load

	dir    string
	redis  []*redisShard
	ln     net.Listener // the dashboard's, opened first (listen)
	srv    *http.Server
	cancel context.CancelFunc
	// planeCtx is the plane's Run context, ended by Close.
	planeCtx context.Context
	wg       sync.WaitGroup
	hc       *http.Client
	// ownCPU is what a gateway spends on a command besides its burn, in µs,
	// as calibrateBurn measured it (0 before).
	ownCPU float64

	closeOnce sync.Once
}

// Start builds and starts a cluster. On error everything started is stopped.
// Call Close when done (also after a failed scenario: it stops every process).
func Start(ctx context.Context, spec Spec) (c *Cluster, err error) {
	spec = spec.withDefaults()
	if err := spec.validate(); err != nil {
		return nil, err
	}
	c = &Cluster{Spec: spec, hc: &http.Client{Timeout: 2 * time.Second}}
	defer func() {
		if err != nil {
			c.Close()
			c = nil
		}
	}()
	// The dashboard's address is checked, and taken, before anything is
	// built or started: a refused or busy address fails at once.
	if err := c.listen(); err != nil {
		return c, err
	}
	if c.dir, err = os.MkdirTemp("", "tierkit-cluster"); err != nil {
		return c, err
	}
	bin := spec.GatewayBin
	if bin != "" {
		// exec looks a bare name ("gw") up in PATH only: the file in
		// the working directory would not be found, or another program
		// of that name run instead.
		if bin, err = filepath.Abs(bin); err != nil {
			return c, err
		}
	} else {
		spec.Logf("building the gateway")
		if bin, err = buildGateway(ctx, c.dir); err != nil {
			return c, err
		}
	}
	for range spec.Shards {
		r, err := startRedis(ctx)
		if err != nil {
			return c, err
		}
		c.redis = append(c.redis, r)
		c.Shards = append(c.Shards, r.addr)
	}
	for i := range spec.Tenants {
		c.Tenants = append(c.Tenants, fmt.Sprintf("t%02d", i))
	}
	if err := c.startGateways(ctx, bin); err != nil {
		return c, err
	}
	// aimd's default signal is the cgroup's CPU: here, the whole shared
	// machine, not the gateway. A target of 1 keeps other processes' load
	// from cutting every gateway's admission limit to its floor; the limit
	// still falls on a reading above 1, and a scenario may cap it (aimd.max).
	if err := c.SetKnobs(ctx, c.Gateways, "cluster: baseline cost per command; admission not cut by the machine's load",
		"chaos.burn_us", spec.Burn, "aimd.target", 1.0); err != nil {
		return c, err
	}
	if err := c.startPlane(); err != nil {
		return c, err
	}
	if err := c.startLoad(ctx); err != nil {
		return c, err
	}
	if err := c.calibrateBurn(ctx); err != nil {
		return c, err
	}
	return c, c.runPlane(ctx)
}

func (c *Cluster) startGateways(ctx context.Context, bin string) error {
	type res struct {
		i   int
		gw  *gatewayProc
		err error
	}
	n := len(c.Spec.Regions) * c.Spec.Gateways
	c.Gateways = make([]*gatewayProc, n)
	out := make(chan res, n)
	for ri, region := range c.Spec.Regions {
		for j := range c.Spec.Gateways {
			i := ri*c.Spec.Gateways + j
			go func() {
				gw, err := startGateway(ctx, bin, c.dir, fmt.Sprintf("%s-%d", region, j+1), region, c.Tenants, c.Shards)
				out <- res{i, gw, err}
			}()
		}
	}
	var errs []error
	for range n {
		r := <-out
		c.Gateways[r.i] = r.gw
		errs = append(errs, r.err)
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if err := checkAddrs(c.Gateways, c.Spec.HTTP); err != nil {
		return err
	}
	for _, g := range c.Gateways {
		c.Spec.Logf("gateway %s: resp %s http %s", g.ID, g.RESP, g.HTTP)
	}
	return nil
}

// listen opens the dashboard's listener on the spec's HTTP address (a free
// loopback port when it is empty). The plane's API has no authentication and
// drives the whole tier (the rollout, drains, and gateways every client then
// sends its tenant's password to), so it is served on loopback only: an
// address that is not is refused, an IP literal or an empty host (every
// interface) before it is listened on, a name once it resolved.
func (c *Cluster) listen() error {
	addr := c.Spec.HTTP
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	if err := checkLoopbackLiteral(addr); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	if ta, ok := ln.Addr().(*net.TCPAddr); !ok || !ta.IP.IsLoopback() {
		_ = ln.Close()
		return fmt.Errorf("cluster: dashboard address %s is not a loopback address", ln.Addr())
	}
	c.ln = ln
	return nil
}

// checkLoopbackLiteral refuses a dashboard address that is malformed (its
// port included), has an empty host (every interface) or an IP literal that
// is not loopback; "" (a free loopback port) and names pass, the names
// checked once they are listened on (listen).
func checkLoopbackLiteral(addr string) error {
	if addr == "" {
		return nil
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("cluster: dashboard address: %w", err)
	}
	// SplitHostPort leaves the port unread: one out of range would only be
	// refused by the listen, after parseFlags (exit 1, not 2).
	if _, err := net.LookupPort("tcp", port); err != nil {
		return fmt.Errorf("cluster: dashboard address %s: %w", addr, err)
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && !ip.IsLoopback() {
		return fmt.Errorf("cluster: dashboard address %s is not a loopback address", addr)
	}
	return nil
}

// startPlane creates the plane and serves its dashboard on c.ln (listen).
func (c *Cluster) startPlane() error {
	cfg := controlplane.Config{Direct: c.Shards, Cadence: c.Spec.Cadence,
		Rollout: rollout.Config{Rules: []rollout.Rule{{Service: service, Percent: 100}}},
		// A tick is 400 ms of a gateway serving about 40 requests/s (16 per
		// tick, split by key hashing): one tick's utilization is noisy, so
		// it is averaged over about 5 ticks, and failover projects the
		// trend 2 ticks ahead rather than 5. A gateway process of the
		// loaded machine may answer a poll late: one late answer would
		// count its region's capacity a third short for a tick, so a poll
		// may take a whole cadence (the default is half).
		// A spill holds at least 8 ticks (2 s) rather than 15 and winds down
		// by 4 points a tick rather than 2, so a false alarm of the noisy
		// signal costs seconds, not tens of seconds.
		//
		// The plane restarts every host's average when a weight of its
		// region or the failover routes change, so changes made on noise
		// also undo the averaging: the balancer leaves hosts within 20% of
		// their region's mean alone (the plane's default 10%), and spill
		// shares are published in steps of 5 points (default 1).
		Smoothing:   0.2,
		PollTimeout: c.Spec.Cadence,
		Balancer:    balancer.Config{Deadband: 0.2},
		ShareStep:   0.05,
		Failover:    failover.Config{LeadRuns: 2, MinHold: 8, DownStep: 0.04},
	}
	for i, r := range c.Spec.Regions {
		var backups []string
		for j := 1; j < len(c.Spec.Regions); j++ {
			backups = append(backups, c.Spec.Regions[(i+j)%len(c.Spec.Regions)])
		}
		cfg.Regions = append(cfg.Regions, controlplane.Region{Name: r, Backups: backups})
	}
	for _, g := range c.Gateways {
		cfg.Gateways = append(cfg.Gateways, controlplane.Gateway{ID: g.ID, Region: g.Region, RESP: g.RESP, HTTP: g.HTTP, Cores: c.Spec.Cores})
	}
	// Served on loopback only (listen), the API answers the loopback names
	// and its own address only: a web page whose domain is resolved anew to
	// 127.0.0.1 (DNS rebinding) is refused with 403. Its own address is
	// any loopback IP -http names (127.0.0.2, say): the dashboard's URL and
	// the clients' routes are on it.
	var ip net.IP
	if ta, ok := c.ln.Addr().(*net.TCPAddr); ok {
		ip = ta.IP
	}
	cfg.AllowedHosts = loophost.Names(ip)
	p, err := controlplane.New(cfg)
	if err != nil {
		return err
	}
	ln := c.ln
	c.Plane = p
	c.PlaneURL = "http://" + ln.Addr().String()
	// As the controlplane command's server: a stalled body or an idle
	// connection does not hold a handler for good.
	c.srv = &http.Server{Handler: p.Handler(), ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	ctx, cancel := context.WithCancel(context.Background())
	c.cancel = cancel
	c.planeCtx = ctx
	c.wg.Go(func() { _ = c.srv.Serve(ln) })
	c.Spec.Logf("control plane: %s", c.PlaneURL)
	return nil
}

// runPlane starts the plane's ticks and waits until it settled: every
// gateway polled with a utilization, and every region local (not spilling).
// It starts after the load has warmed up, so the plane's first utilization
// samples are not the gateways' start-up work (connections being opened by
// every client at once), which on a gateway of 0.1 nominal core reads as
// overload.
func (c *Cluster) runPlane(ctx context.Context) error {
	c.wg.Go(func() { _ = c.Plane.Run(c.planeCtx) })
	return c.Settle(ctx, 20*time.Second)
}

// Settle waits until every running gateway has a utilization in the plane's
// state and is not draining, and every region is local (not spilling), within
// d.
func (c *Cluster) Settle(ctx context.Context, d time.Duration) error {
	err := poll(ctx, d, c.Spec.Cadence/2, func() (bool, error) {
		st := c.Plane.State()
		for _, h := range st.Hosts {
			// A single late poll (down for a tick) is not a reason to wait:
			// a host counts once it is measured and not draining.
			if g := c.Gateway(h.ID); g != nil && g.alive() && (h.Draining || h.CPU == 0) {
				return false, nil
			}
		}
		for _, r := range st.Regions {
			if r.Phase != "local" || r.Out > 0 {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		st := c.Plane.State()
		var b strings.Builder
		for _, h := range st.Hosts {
			fmt.Fprintf(&b, " %s %s cpu %.2f draining %v down %d ticks %q;", h.ID, h.Health, h.CPU, h.Draining, h.DownTicks, h.Error)
		}
		for _, r := range st.Regions {
			fmt.Fprintf(&b, " %s %s out %.2f (%s);", r.Name, r.Phase, r.Out, r.Reason)
		}
		return fmt.Errorf("cluster: the plane did not settle:%s %w", b.String(), err)
	}
	return nil
}

func (c *Cluster) startLoad(ctx context.Context) error {
	spec := c.loadSpec()
	l, err := NewLoad(spec)
	if err != nil {
		return err
	}
	c.Load = l
	url := c.PlaneURL + "/api/routes"
	every := c.Spec.Follow
	l.Start(spec, func(ctx context.Context, cl *client.Client) { _ = controlplane.Follow(ctx, url, cl, every) })
	// Every client has routes before a scenario starts.
	err = poll(ctx, 10*time.Second, 20*time.Millisecond, func() (bool, error) {
		for _, cl := range l.Clients() {
			if _, ok := cl.Routes(); !ok {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		return err
	}
	// Warm up: every client's pools open and the first requests are served.
	return poll(ctx, 10*time.Second, 20*time.Millisecond, func() (bool, error) {
		for _, cs := range l.Snapshot().Streams {
			if cs.OK == 0 {
				return false, nil
			}
		}
		return true, nil
	})
}

func (c *Cluster) loadSpec() LoadSpec {
	return LoadSpec{Tenants: c.Tenants, Regions: c.Spec.Regions, Rate: c.Spec.Rate, Workers: c.Spec.Workers,
		PoolSize: 8, Timeout: 2 * time.Second, Keys: 1000}
}

// Close stops the load, the plane and every process (gateways first), and
// removes the temporary directory. It is idempotent and safe on a partly
// started cluster.
func (c *Cluster) Close() {
	c.closeOnce.Do(func() {
		if c.Load != nil {
			_ = c.Load.Close()
		}
		if c.cancel != nil {
			c.cancel()
		}
		if c.srv != nil {
			_ = c.srv.Close()
		} else if c.ln != nil { // the plane never served it
			_ = c.ln.Close()
		}
		c.wg.Wait()
		var wg sync.WaitGroup
		for _, g := range c.Gateways {
			if g != nil {
				wg.Go(func() { g.stop(2 * time.Second) })
			}
		}
		wg.Wait()
		for _, r := range c.redis {
			r.kill()
		}
		if c.dir != "" {
			_ = os.RemoveAll(c.dir)
		}
		c.hc.CloseIdleConnections()
	})
}

// Gateway returns the gateway with id, or nil.
func (c *Cluster) Gateway(id string) *gatewayProc {
	for _, g := range c.Gateways {
		if g.ID == id {
			return g
		}
	}
	return nil
}

// Dead returns the gateways that no longer run, except those a scenario
// killed on purpose.
func (c *Cluster) Dead() []*gatewayProc {
	var out []*gatewayProc
	for _, g := range c.Gateways {
		if !g.alive() && !g.killed {
			out = append(out, g)
		}
	}
	return out
}

// RegionGateways returns region's gateways.
func (c *Cluster) RegionGateways(region string) []*gatewayProc {
	var out []*gatewayProc
	for _, g := range c.Gateways {
		if g.Region == region {
			out = append(out, g)
		}
	}
	return out
}

// RegionOf maps a RESP address to its gateway's region ("" for a shard).
func (c *Cluster) RegionOf(addr string) string {
	for _, g := range c.Gateways {
		if g.RESP == addr {
			return g.Region
		}
	}
	return ""
}

// WaitRoutes polls until every client of the load routes on routes for
// which pred holds, within d.
func (c *Cluster) WaitRoutes(ctx context.Context, d time.Duration, pred func(client.Routes) bool) error {
	behind := 0
	err := poll(ctx, d, 10*time.Millisecond, func() (bool, error) {
		behind = 0
		for _, cl := range c.Load.Clients() {
			if r, ok := cl.Routes(); !ok || !pred(r) {
				behind++
			}
		}
		return behind == 0, nil
	})
	if err != nil {
		_, v := c.Plane.Routes()
		return fmt.Errorf("%d of %d clients without the routes (plane at version %d): %w", behind, len(c.Load.Clients()), v, err)
	}
	return nil
}
