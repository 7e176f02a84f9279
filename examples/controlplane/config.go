package controlplane

import (
	"fmt"
	"math"
	"net"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tierkit/tierkit/balancer"
	"github.com/tierkit/tierkit/failover"
	"github.com/tierkit/tierkit/hashring"
	"github.com/tierkit/tierkit/rollout"
)

// Gateway is one gateway process the plane polls and publishes.
type Gateway struct {
	// ID names the gateway; unique, e.g. "eu-1".
	ID string `json:"id"`
	// Region is the gateway's region; one of Config.Regions.
	Region string `json:"region"`
	// RESP is the host:port clients talk to. It is the gateway's node ID in the
	// published ring (client.Routes.Gateways) and in client.Routes.Draining; unique.
	RESP string `json:"resp"`
	// HTTP is the host:port of the gateway's HTTP surface: the plane polls
	// GET http://HTTP/control/ (its state and knobs); unique.
	HTTP string `json:"http"`
	// Cores is the gateway's nominal capacity in cores (at least failover.MinCapacity,
	// at most 1e6): a new gateway starts at a weight proportional to it, and its
	// utilization is CPU seconds per second over Cores. A fraction is fine (0.5 for
	// a process sharing a core).
	Cores float64 `json:"cores"`
}

// Region is one region of the tier.
type Region struct {
	// Name identifies the region; required, unique.
	Name string `json:"name"`
	// Backups are the regions that take this region's spill, in order of preference:
	// they form its failover ring with weights 1, 1/2, 1/4, ..., each capped by its
	// headroom.
	Backups []string `json:"backups,omitempty"`
	// Mega is the region's mega-region (failover.Region.Mega); optional.
	Mega string `json:"mega,omitempty"`
	// Knobs are the failover mechanisms' percentages (failover.Knobs). The zero
	// Knobs mean Ring 100 when Backups is set (spill to the backups, nowhere else),
	// and no spill otherwise.
	Knobs failover.Knobs `json:"knobs,omitzero"`
}

// Config configures a [Plane]. Zero fields take the documented defaults.
type Config struct {
	// Regions lists every region; at least one.
	Regions []Region
	// Gateways are the gateways at start; more come and go with [Plane.AddGateway]
	// and [Plane.RemoveGateway].
	Gateways []Gateway
	// Direct lists the backend shard addresses for direct mode (client.Routes.Direct),
	// in the order the gateways were given them; each is host:port.
	Direct []string
	// Cadence is the period of Run: one poll of every gateway, one balancer run per
	// region, one failover step. Default 1s.
	Cadence time.Duration
	// Rollout is the initial rollout flag set; the zero value routes nothing through
	// the gateways (everything direct) until [Plane.SetRollout]. Its strings must
	// be valid UTF-8, as for SetRollout.
	Rollout rollout.Config

	// Balancer tunes the per-region weight controller (one balancer per region:
	// weights only compare within a region's ring). Zero fields take balancer's
	// defaults, except Deadband (default 0.10 here, not 0.03) and HotLoad (0.35): a
	// utilization measured over one cadence on a shared machine is noisier than the
	// minute-scale averages balancer's defaults assume, and a weight change moves keys
	// and bumps the routes' version. (Regions of fewer than 8 gateways with a signal
	// are always classified steady-drift: the damped, clamped, throttled step.)
	Balancer balancer.Config
	// Failover tunes the cross-region signal. Its Regions are ignored (they are built
	// from Regions); Tier defaults to "gateway"; other zero fields take failover's
	// defaults.
	Failover failover.Config

	// PollTimeout bounds one gateway's poll. Default Cadence/2. Polls run
	// PollConcurrency at a time, so gateways that accept connections but never
	// answer make a tick last up to ceil(hung/PollConcurrency) x PollTimeout
	// (a hung gateway takes a slot for the whole timeout). A tick longer than
	// Cadence (a PollTimeout above it, which is allowed, or more hung
	// gateways than PollConcurrency) delays Run's next tick rather than
	// queueing ticks: the ticker drops those it missed.
	PollTimeout time.Duration
	// PollConcurrency bounds the polls in flight during a tick. Default 16.
	PollConcurrency int
	// DrainAfter is the number of consecutive failed polls after which a gateway is
	// listed in client.Routes.Draining, so clients skip it. Default 3.
	DrainAfter int
	// Smoothing is the weight of the newest utilization sample in each gateway's
	// moving average, in (0, 1]; 1 disables smoothing. Default 0.5.
	Smoothing float64
	// MinCPU is the utilization below which a gateway gives the balancer no signal (it
	// keeps its weight): an idle tier's CPU is mostly noise. Default 0.02, which a
	// zero takes: to give the balancer every reading, set a tiny positive value (1e-9).
	MinCPU float64
	// ShareStep is the resolution of published failover shares: shares are rounded to
	// a multiple of it, and the published routes stay while every share is within a
	// step of its published value, so noise in the signal does not republish routes
	// every tick. Default 0.01.
	ShareStep float64
	// Slots is the slot count of each published region ring (hashring.Config.Slots).
	// Default 4096: 8 KiB per ring (about 11 KB in the routes JSON, base64),
	// balance within 1/(share*4096).
	Slots int
	// History is the number of ticks kept for the dashboard's plots. Default 300.
	History int
	// Poller reads one gateway's state. If nil, the plane GETs
	// http://<Gateway.HTTP>/control/ and reads the "host" entry of its state and
	// its knobs.
	Poller Poller
	// AllowedHosts, if set, lists the names [Plane.Handler] answers to: a request
	// whose Host header names another is refused with 403, whatever its path. It
	// guards a plane on loopback against DNS rebinding, where a page of the
	// attacker's domain, resolved anew to 127.0.0.1, reads the API and drives it
	// as a same-origin page with that domain as Host (control.Config.AllowedHosts
	// is the same guard for a gateway's knobs). Names compare without the port
	// and case-insensitively, IPv6 addresses without brackets: {"localhost",
	// "127.0.0.1", "::1"}. IP addresses compare as addresses: an IPv4-mapped
	// IPv6 one ([::ffff:127.0.0.1]) is its IPv4 address, and an IPv6 one
	// matches however it is spelled. Empty means any Host.
	AllowedHosts []string
}

func (c Config) withDefaults() Config {
	if c.Cadence == 0 {
		c.Cadence = time.Second
	}
	if c.PollTimeout == 0 {
		c.PollTimeout = c.Cadence / 2
	}
	if c.PollConcurrency == 0 {
		c.PollConcurrency = 16
	}
	if c.DrainAfter == 0 {
		c.DrainAfter = 3
	}
	if c.Smoothing == 0 {
		c.Smoothing = 0.5
	}
	if c.MinCPU == 0 {
		c.MinCPU = 0.02
	}
	if c.ShareStep == 0 {
		c.ShareStep = 0.01
	}
	if c.Slots == 0 {
		c.Slots = 1 << 12
	}
	if c.History == 0 {
		c.History = 300
	}
	if c.Balancer.Deadband == 0 {
		c.Balancer.Deadband = 0.10
	}
	if c.Balancer.HotLoad == 0 {
		c.Balancer.HotLoad = 0.35
	}
	if c.Failover.Tier == "" {
		c.Failover.Tier = "gateway"
	}
	if c.Poller == nil {
		c.Poller = &HTTPPoller{}
	}
	return c
}

// validate checks c after defaults; errors wrap ErrInvalidConfig.
func (c Config) validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("controlplane: "+format+": %w", append(args, ErrInvalidConfig)...)
	}
	switch {
	case c.Cadence < time.Millisecond:
		return bad("Cadence %v below 1ms", c.Cadence)
	case c.PollTimeout <= 0:
		return bad("PollTimeout %v not > 0", c.PollTimeout)
	case c.PollConcurrency < 1:
		return bad("PollConcurrency %d not >= 1", c.PollConcurrency)
	case c.DrainAfter < 1:
		return bad("DrainAfter %d not >= 1", c.DrainAfter)
	case math.IsNaN(c.Smoothing) || c.Smoothing <= 0 || c.Smoothing > 1:
		return bad("Smoothing %v not in (0, 1]", c.Smoothing)
	case math.IsNaN(c.MinCPU) || c.MinCPU < 0 || c.MinCPU >= 1:
		return bad("MinCPU %v not in [0, 1)", c.MinCPU)
	case math.IsNaN(c.ShareStep) || c.ShareStep <= 0 || c.ShareStep > 0.5:
		return bad("ShareStep %v not in (0, 0.5]", c.ShareStep)
	case c.History < 1 || c.History > 100_000:
		return bad("History %d not in [1, 100000]", c.History)
	}
	if _, err := hashring.New(hashring.Config{Slots: c.Slots}, nil); err != nil {
		// err names the rule and ends in hashring's ErrInvalidConfig, which
		// bad says again.
		return bad("%s", strings.TrimSuffix(err.Error(), ": "+hashring.ErrInvalidConfig.Error()))
	}
	if len(c.Regions) == 0 {
		return bad("no regions")
	}
	seen := map[string]int{} // addrKey -> index in Direct
	for i, d := range c.Direct {
		if d == "" {
			return bad("direct shard %d has no address", i)
		}
		if !utf8.ValidString(d) {
			return bad("direct shard %d's address %q is not UTF-8, which the routes document (JSON) cannot carry", i, d)
		}
		// Followers dial it as given: without a port (the port forgotten),
		// with a space ("-direct 'a:1, b:2'") or as a URL, no dial reaches it.
		if !hostPort(d) {
			return bad("direct shard %d's address %q is not host:port", i, d)
		}
		// Followers build their direct ring over the list as given: one
		// server named twice, however spelled, takes two shares of it
		// (and a gateway refuses a Redis address named twice as written).
		if j, dup := seen[addrKey(d)]; dup {
			return bad("direct shard %d's address %q names shard %d (%q) twice", i, d, j, c.Direct[j])
		}
		seen[addrKey(d)] = i
	}
	for _, r := range c.Regions {
		// JSON carries each byte that is not UTF-8 as U+FFFD: followers
		// would read another name, and two such names as one.
		if !utf8.ValidString(r.Name) || !utf8.ValidString(r.Mega) {
			return bad("region %q (mega %q) is not UTF-8, which the routes document (JSON) cannot carry", r.Name, r.Mega)
		}
	}
	for _, h := range c.AllowedHosts {
		// A port, brackets or a wildcard would never match: Host is compared
		// whole, without its port.
		if h == "" || net.ParseIP(h) == nil && strings.ContainsAny(h, ":[]/* \t") {
			return bad("AllowedHosts entry %q is not a host name or IP address without port", h)
		}
	}
	return nil
}

// failoverConfig builds the failover router's Config from the regions.
func (c Config) failoverConfig() failover.Config {
	fc := c.Failover
	fc.Regions = make([]failover.Region, len(c.Regions))
	for i, r := range c.Regions {
		fr := failover.Region{Name: r.Name, Mega: r.Mega, Knobs: r.Knobs}
		w := 1.0
		for _, b := range r.Backups {
			fr.Ring = append(fr.Ring, failover.Backup{Region: b, Weight: w})
			w /= 2
		}
		if fr.Knobs == (failover.Knobs{}) && len(r.Backups) > 0 {
			fr.Knobs.Ring = 100
		}
		fc.Regions[i] = fr
	}
	return fc
}

// checkGateway validates g against the regions (a set of names).
// maxCores bounds a gateway's cores: far above any host (the article's
// 26 to 126), and low enough that no region's sum overflows.
const maxCores = 1e6

func checkGateway(g Gateway, regions map[string]bool) error {
	bad := func(why string, args ...any) error {
		return &GatewayError{ID: g.ID, Reason: fmt.Sprintf(why, args...)}
	}
	switch {
	case g.ID == "":
		return bad("empty ID")
	case !regions[g.Region]:
		return bad("region %q is not configured", g.Region)
	case !utf8.ValidString(g.ID) || !utf8.ValidString(g.RESP) || !utf8.ValidString(g.HTTP):
		// JSON (the routes document, the state) carries each byte that is
		// not UTF-8 as U+FFFD: followers would dial an address never
		// given, and take two such IDs for one.
		return bad("ID or address not UTF-8 (RESP %q, HTTP %q)", g.RESP, g.HTTP)
	case g.RESP == "":
		return bad("empty RESP address")
	case g.HTTP == "":
		return bad("empty HTTP address")
	case !hostPort(g.RESP):
		return bad("RESP address %q is not host:port", g.RESP)
	case !hostPort(g.HTTP):
		// it is put into the poll's URL: a path or query would poll another URL
		return bad("HTTP address %q is not host:port", g.HTTP)
	case math.IsNaN(g.Cores) || math.IsInf(g.Cores, 0) || g.Cores <= 0:
		return bad("cores %v not > 0", g.Cores)
	case g.Cores < failover.MinCapacity:
		// a region's capacity is a sum of them, and the failover router
		// refuses a subnormal one: every tick would fail
		return bad("cores %v below %v", g.Cores, failover.MinCapacity)
	case g.Cores > maxCores:
		// a region's capacity is a sum of them: two of 1e308 made it +Inf,
		// and the failover router then refused every tick
		return bad("cores %v above %v", g.Cores, float64(maxCores))
	}
	return nil
}

// addrKey is the canonical form of a host:port that hostPort accepts, for
// telling two spellings of one address apart from two addresses: an IP in
// its standard form, a host name in lower case (names ignore case), the
// port without leading zeros.
func addrKey(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	if ip := net.ParseIP(host); ip != nil {
		host = ip.String()
	} else {
		host = strings.ToLower(host)
	}
	if n, err := strconv.ParseUint(port, 10, 16); err == nil {
		port = strconv.FormatUint(n, 10)
	}
	return net.JoinHostPort(host, port)
}

// hostPort reports whether addr is a host and a port (1 to 65535) that a
// client can dial and that names only the host in a URL: no path, query,
// fragment, user or white space.
func hostPort(addr string) bool {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host == "" || strings.ContainsAny(host, "/?#@\\") {
		return false
	}
	for _, r := range host {
		if r <= ' ' || r == 0x7f {
			return false
		}
	}
	n, err := strconv.ParseUint(port, 10, 16)
	return err == nil && n > 0
}
