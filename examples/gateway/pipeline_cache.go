package main

import (
	"context"
	"slices"
)

// cachedParts runs the parts of a plain run with the caching tier on. Each
// shard's GETs go through its cache at once: the keys it misses go to the
// shard as one batch item and fill the cache. Its SETs go to its batch as
// without the tier. Without this, each GET of a run that the cache did not
// hold took a worker goroutine, a coalesced load, a fill record and a batch
// wait of its own: 39% of the gateway's CPU under pipelined GETs of random
// keys.
//
// Every shard's SETs are started first (no goroutine), then every shard's
// GETs are looked up here, once each (cacheTier.lookupMany); the shards with
// misses load at the same time (cacheTier.fillMany), each but the last on a
// worker. Results land in each part's res, one per op (a failed op carries
// its error; the part's err stays nil). pend is scratch space, as for
// submitParts.
func (g *Gateway) cachedParts(ctx context.Context, tenant string, order []int, parts []*plainPart, pend []pendingPart) []pendingPart {
	pend = pend[:0]
	var loads []int // shards with GETs that the cache missed
	for _, sh := range order {
		p := parts[sh]
		p.res = make([]opResult, len(p.ops)) // the replies point into it: not reused
		p.split()
		if len(p.wops) > 0 {
			pend = append(pend, g.batches.Start(ctx, group{tenant: tenant, shard: sh}, p.wops))
		} else {
			pend = append(pend, pendingPart{})
		}
		if len(p.gkeys) == 0 {
			continue
		}
		// One lookup per key: the hits are answered now, only the misses
		// are left to load (a probe first and a read after cost a second
		// lookup of every key: 13% of the CPU when all hit).
		p.vals = slices.Grow(p.vals[:0], len(p.gkeys))[:len(p.gkeys)]
		p.missed = g.cache.lookupMany(sh, p.gkeys, p.vals, p.missed[:0])
		if len(p.shared) > 0 {
			g.cache.countShared(p.gpos, p.missed, p.shared)
		}
		for i, pos := range p.gpos {
			p.res[pos] = p.vals[i].result()
		}
		if len(p.missed) > 0 {
			loads = append(loads, sh)
		}
	}
	// The last shard's misses load on this goroutine (one hand-off fewer);
	// the wait group and the closures exist only when there are others: a
	// run whose reads all hit, or miss on one shard, allocates neither.
	var wg *taskGroup
	if len(loads) > 1 {
		wg = new(taskGroup)
		for _, sh := range loads[:len(loads)-1] {
			g.workers.goDo(wg, func() { g.loadMissed(ctx, tenant, sh, parts[sh]) })
		}
	}
	if len(loads) > 0 {
		sh := loads[len(loads)-1]
		g.loadMissed(ctx, tenant, sh, parts[sh])
	}
	for i, sh := range order {
		p := parts[sh]
		if len(p.wops) == 0 {
			continue
		}
		res, err := g.settled(pend[i].Wait())
		pend[i] = pendingPart{} // the Pending is spent: drop its batch
		for j, pos := range p.wpos {
			if err != nil {
				p.res[pos] = opResult{err: err}
			} else {
				p.res[pos] = res[j]
			}
		}
	}
	if wg != nil {
		wg.Wait()
	}
	return pend[:0]
}

// loadMissed loads the GETs of part p (shard sh) that the cache missed, with
// one batch item, and puts their results in p.res.
func (g *Gateway) loadMissed(ctx context.Context, tenant string, sh int, p *plainPart) {
	grp := group{tenant: tenant, shard: sh}
	res, err := g.cache.fillMissed(ctx, sh, p.gkeys, p.missed, func(ctx context.Context, miss []string) ([]opResult, error) {
		return g.submit(ctx, grp, getOps(miss))
	})
	for j, i := range p.missed {
		if err != nil {
			p.res[p.gpos[i]] = opResult{err: err}
		} else {
			p.res[p.gpos[i]] = res[j]
		}
	}
}

// split sorts the part's ops into its GETs' keys and its writes, with the
// index in ops of each, on arrays kept from the part's last run.
func (p *plainPart) split() {
	p.gkeys, p.gpos, p.wops, p.wpos = p.gkeys[:0], p.gpos[:0], p.wops[:0], p.wpos[:0]
	for i, o := range p.ops {
		if o.kind == opGet {
			p.gkeys = append(p.gkeys, o.key)
			p.gpos = append(p.gpos, i)
		} else {
			p.wops = append(p.wops, o)
			p.wpos = append(p.wpos, i)
		}
	}
}
