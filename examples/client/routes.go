package client

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/cespare/xxhash/v2"

	"github.com/tierkit/tierkit/failover"
	"github.com/tierkit/tierkit/hashring"
	"github.com/tierkit/tierkit/internal/mix"
	"github.com/tierkit/tierkit/rollout"
)

// DirectSlots is the slot count of the ring over backend shards in direct mode.
// It matches the reference gateway's shard ring (nodes "shard-0".."shard-N-1",
// weight 1, 4096 slots), so a key lives on the same shard whichever path wrote it.
const DirectSlots = 1 << 12

// ErrInvalidRoutes is wrapped by Client.SetRoutes for Routes that cannot be
// used (a nil or empty ring, a bad shard list). The previous Routes stay in force.
var ErrInvalidRoutes = errors.New("invalid routes")

// Routes is what a control plane publishes to clients: the gateway hosts of each
// region with their weights (a ring), the cross-region failover table, the
// rollout flags, and the backend shards for direct mode. Client.SetRoutes and
// Client.Routes copy the Gateways map and the Direct and Draining slices, so
// the caller may change its own afterwards; the rings, table and flags they
// point to are shared, not copied. Rings are immutable by construction; a
// failover.Table is a plain value whose Routes every request reads, so publish
// a new one rather than changing a published one's fields (a data race with
// the requests routing on it), and publish a new rollout.Flags rather than
// calling SetConfig on a published one if requests must see a consistent
// snapshot.
type Routes struct {
	// Gateways maps a region to the ring of its gateway hosts (node IDs are
	// host:port RESP addresses, weights from the control plane). Decode a published
	// ring with hashring.Unmarshal. A region without a ring cannot serve the gateway
	// path: such requests fail with ErrNoHost.
	Gateways map[string]*hashring.Ring
	// Failover is the cross-region table; nil keeps every client in its home region.
	Failover *failover.Table
	// Rollout decides gateway or direct per service and key prefix; nil sends
	// everything direct.
	Rollout *rollout.Flags
	// Direct lists the backend shards (host:port of redis-server or any RESP store)
	// in the order the gateways were given them. Empty disables direct mode: requests
	// the rollout keeps off the gateway then fail with ErrNoHost.
	Direct []string
	// Draining lists gateway hosts that are shutting down: new requests skip them and
	// go to the next host of the key's replica order, as for an ejected host.
	Draining []string
}

// compiled is a validated Routes with the direct ring built.
type compiled struct {
	Routes
	direct   *hashring.Ring
	shardOf  map[string]string // direct ring node -> shard address
	draining map[string]bool
	hosts    map[string]bool // every host any path may use
}

func compile(r Routes) (*compiled, error) {
	r = r.clone() // validated and kept: the caller's map and slices stay its own
	c := &compiled{Routes: r, shardOf: map[string]string{}, draining: map[string]bool{}, hosts: map[string]bool{}}
	for region, ring := range r.Gateways {
		if ring == nil || ring.Len() == 0 {
			return nil, fmt.Errorf("client: %w: region %q has an empty ring", ErrInvalidRoutes, region)
		}
		for _, n := range ring.Nodes() {
			c.hosts[n.ID] = true
		}
	}
	if len(r.Direct) > 0 {
		nodes := make([]hashring.Node, len(r.Direct))
		for i, addr := range r.Direct {
			if addr == "" {
				return nil, fmt.Errorf("client: %w: direct shard %d has no address", ErrInvalidRoutes, i)
			}
			id := "shard-" + strconv.Itoa(i)
			nodes[i] = hashring.Node{ID: id, Weight: 1}
			c.shardOf[id] = addr
			c.hosts[addr] = true
		}
		ring, err := hashring.New(hashring.Config{Slots: DirectSlots}, nodes)
		if err != nil {
			return nil, fmt.Errorf("client: %w: %w", ErrInvalidRoutes, err)
		}
		c.direct = ring
	}
	for _, h := range r.Draining {
		c.draining[h] = true
	}
	return c, nil
}

// clone returns r with a copy of its Gateways map and its slices.
func (r Routes) clone() Routes {
	r.Gateways = maps.Clone(r.Gateways)
	r.Direct = slices.Clone(r.Direct)
	r.Draining = slices.Clone(r.Draining)
	return r
}

// Path says how a request reaches the data.
type Path uint8

// Paths.
const (
	PathGateway Path = iota + 1 // through a regional gateway host
	PathDirect                  // straight to the backend shard
)

// String returns "gateway" or "direct".
func (p Path) String() string {
	switch p {
	case PathGateway:
		return "gateway"
	case PathDirect:
		return "direct"
	}
	return "path(" + strconv.Itoa(int(p)) + ")"
}

// Target is where a key's request goes: the path, the region serving it (the
// gateway path only), the host tried first and the host a retry uses ("" when
// there is none: no other host of the ring is neither ejected nor draining).
type Target struct {
	Path   Path
	Region string
	Host   string
	Next   string
	// Reason is the rollout decision's reason (why gateway or direct).
	Reason rollout.Reason
}

// routingKey is the part of key that placement hashes: the {hash tag} if there
// is one (as the gateway and Redis Cluster do), so tagged keys stay together.
func routingKey(key string) string {
	if i := strings.IndexByte(key, '{'); i >= 0 {
		if j := strings.IndexByte(key[i+1:], '}'); j > 0 {
			return key[i+1 : i+1+j]
		}
	}
	return key
}

// gatewayHash hashes key for the gateway-host ring.
func gatewayHash(key string) uint64 { return xxhash.Sum64String(routingKey(key)) }

// pickRegion returns the region serving a request of key hash h: table's
// Pick by cfg.Unit, or, without a Unit, the same choice (the first route
// out of cfg.Region whose cumulative share exceeds x in [0, 1)) with x drawn
// from the mixed key hash h. Table.Pick hashes its unit with xxhash as the
// ring does, and a ring gives each host contiguous slot ranges: picking by
// the key itself would send every spilled key (a low hash) to the hosts
// owning the backup ring's low slots, and take them from the home ring's
// low-slot hosts only. Mixing makes the spilled keys a random sample of the
// key space, spread over both rings by weight.
func pickRegion(table *failover.Table, cfg *Config, h uint64) string {
	if table == nil {
		return cfg.Region
	}
	if cfg.Unit != "" {
		return table.Pick(cfg.Region, cfg.Unit)
	}
	x := float64(mix.Mix64(h)>>11) / (1 << 53)
	acc := 0.0
	for _, rt := range table.Routes {
		if rt.From != cfg.Region {
			continue
		}
		acc += rt.Share
		if x < acc {
			return rt.To
		}
	}
	return cfg.Region
}
