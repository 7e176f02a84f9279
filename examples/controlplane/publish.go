package controlplane

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/tierkit/tierkit/examples/client"
	"github.com/tierkit/tierkit/hashring"
)

// marshalWire encodes the published routes; a variable so that a test can make
// it fail.
var marshalWire = func(w wireRoutes) ([]byte, error) { return json.Marshal(w) }

// publishLocked derives each region's ring from the gateways' weights (from the
// previous ring, so a change moves the fewest keys) and publishes a new version
// when anything a client routes on changed: a ring's members or weights, the
// failover routes, the rollout flags or the draining hosts. Unchanged decisions
// keep the version, so following clients do not churn.
func (p *Plane) publishLocked() {
	cur := p.pub.Load()
	// After a failed publication p.rings may already hold rings that no
	// published version carries: publish again even if nothing changed since.
	changed := p.ringsLocked() || cur == nil || p.unpublished
	draining := p.sortedDrainingLocked()
	if cur != nil {
		changed = changed || cur.rollGen != p.rollGen || !slices.Equal(cur.draining, draining) ||
			!slices.Equal(cur.routes.Failover.Routes, p.table.Routes)
	}
	if !changed {
		return
	}
	next := &published{version: 1, rollGen: p.rollGen, draining: draining}
	if cur != nil {
		next.version = cur.version + 1
	}
	table := p.table
	next.routes = client.Routes{
		Gateways: make(map[string]*hashring.Ring, len(p.rings)),
		Failover: &table,
		Rollout:  p.flags,
		Direct:   slices.Clone(p.cfg.Direct),
		Draining: draining,
	}
	roll := cloneRollout(p.roll)
	w := wireRoutes{Epoch: p.epoch, Version: next.version, Gateways: make(map[string][]byte, len(p.rings)),
		Failover: &table, Rollout: &roll, Direct: next.routes.Direct, Draining: draining}
	for name, r := range p.rings {
		next.routes.Gateways[name] = r
		b, err := r.MarshalBinary()
		if err != nil {
			p.stats.RingErrors++
			p.unpublished = true
			return
		}
		w.Gateways[name] = b
	}
	data, err := marshalWire(w)
	if err != nil {
		p.stats.RingErrors++
		p.unpublished = true
		return
	}
	p.unpublished = false
	next.wire = data
	next.etag = etag(p.epoch, next.version)
	p.pub.Store(next)
	p.stats.Publications++
}

// ringsLocked derives each region's ring from its gateways' weights and reports
// whether any ring changed.
func (p *Plane) ringsLocked() bool {
	changed := false
	for _, reg := range p.cfg.Regions {
		var nodes []hashring.Node
		for _, id := range p.order {
			if h := p.hosts[id]; h.gw.Region == reg.Name {
				nodes = append(nodes, hashring.Node{ID: h.gw.RESP, Weight: h.weight})
			}
		}
		slices.SortFunc(nodes, func(a, b hashring.Node) int { return strings.Compare(a.ID, b.ID) })
		old := p.rings[reg.Name]
		switch {
		case len(nodes) == 0:
			if old != nil {
				delete(p.rings, reg.Name)
				changed = true
			}
			continue
		case old != nil && slices.Equal(old.Nodes(), nodes):
			continue
		}
		var next *hashring.Ring
		var err error
		if old == nil {
			next, err = hashring.New(hashring.Config{Slots: p.cfg.Slots}, nodes)
		} else {
			next, err = old.Update(nodes)
		}
		if err != nil { // weights are validated finite and > 0: not expected
			p.stats.RingErrors++
			continue
		}
		p.rings[reg.Name] = next
		changed = true
	}
	return changed
}

func etag(epoch int64, version uint64) string {
	return `"` + strconv.FormatInt(epoch, 36) + "-" + strconv.FormatUint(version, 10) + `"`
}
