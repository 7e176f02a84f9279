package controlplane

// Tracking tenants across the gateways: each poll's per-tenant rates, and
// their sum over the gateways at each tick, within bounds on the names kept.

import (
	"maps"
	"slices"
)

// tenantRates returns each tenant's requests and sheds between two samples
// dt seconds apart (a counter that went back counts 0).
func tenantRates(prev, s Sample, dt float64) map[string]tenantRate {
	out := make(map[string]tenantRate, len(s.Tenants))
	for name, t := range s.Tenants {
		p := prev.Tenants[name]
		var r tenantRate
		if t.Requests >= p.Requests {
			r.requests = t.Requests - p.Requests
		}
		if t.Shed >= p.Shed {
			r.shed = t.Shed - p.Shed
		}
		r.reqRate, r.rate = float64(r.requests)/dt, float64(r.shed)/dt
		out[name] = r
	}
	return out
}

// maxTenants bounds the tenants the plane tracks. Their names come from the
// gateways' answers, and each is kept from its first tick on, in the state and
// in every history point: a gateway reporting new names at every poll would
// grow them without bound.
const maxTenants = 1024

// maxTenantName bounds the length in bytes of a tenant name the plane tracks.
// maxTenants bounds the names' count, not their size, and every history point
// repeats each name: a gateway answering a few names as long as its answer
// may be would grow GET /api/state by that much at each tick, up to
// Config.History times it. A longer name is not tracked.
const maxTenantName = 256

// tenantsLocked aggregates the tenants' shed and request deltas over the gateways.
func (p *Plane) tenantsLocked() {
	for _, t := range p.tenants {
		t.reqRate, t.shedRate = 0, 0
	}
	for _, id := range p.order {
		rates := p.hosts[id].tenants
		if len(p.tenants)+len(rates) <= maxTenants {
			for name, r := range rates {
				p.addTenantLocked(name, r)
			}
			continue
		}
		// Which new names still fit must not depend on map order.
		for _, name := range slices.Sorted(maps.Keys(rates)) {
			p.addTenantLocked(name, rates[name])
		}
	}
}

// addTenantLocked adds one gateway's deltas to the tenant name, which is
// tracked from now on unless maxTenants already are or it is longer than
// maxTenantName.
func (p *Plane) addTenantLocked(name string, r tenantRate) {
	t := p.tenants[name]
	if t == nil {
		if len(p.tenants) >= maxTenants || len(name) > maxTenantName {
			return
		}
		t = &tenantTrack{}
		p.tenants[name] = t
	}
	t.requests += r.requests
	t.shed += r.shed
	t.reqRate += r.reqRate
	t.shedRate += r.rate
}
