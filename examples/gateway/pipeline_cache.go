package main

import (
	"context"
	"sync"
)

// cachedParts runs the parts of a plain run with the caching tier on. Each
// shard's GETs go through its cache at once (cacheTier.getMany: the keys it
// misses go to the shard as one batch item and fill the cache), its SETs go to
// its batch as without the tier. Without this, each GET of a run that the
// cache did not hold took a worker goroutine, a coalesced load, a fill record
// and a batch wait of its own: 39% of the gateway's CPU under pipelined GETs
// of random keys.
//
// The shards run at the same time: every shard's SETs are started first (no
// goroutine), then the reads of each shard but the last that must load go to
// a worker, and the rest are read here. Results land in each part's res, one
// per op (a failed op carries its error; the part's err stays nil). pend is
// scratch space, as for submitParts.
func (g *Gateway) cachedParts(ctx context.Context, tenant string, order []int, parts []*plainPart, pend []pendingPart) []pendingPart {
	pend = pend[:0]
	var reads []int // shards with GETs
	for _, sh := range order {
		p := parts[sh]
		p.res = make([]opResult, len(p.ops)) // the replies point into it: not reused
		p.split()
		if len(p.wops) > 0 {
			pend = append(pend, g.batches.Start(ctx, group{tenant: tenant, shard: sh}, p.wops))
		} else {
			pend = append(pend, pendingPart{})
		}
		if len(p.gkeys) > 0 {
			reads = append(reads, sh)
		}
	}
	read := func(sh int) {
		p := parts[sh]
		grp := group{tenant: tenant, shard: sh}
		res, err := g.cache.getMany(ctx, sh, p.gkeys, func(ctx context.Context, miss []string) ([]opResult, error) {
			ops := make([]op, len(miss))
			for i, k := range miss {
				ops[i] = op{kind: opGet, key: k}
			}
			return g.submit(ctx, grp, ops)
		})
		for i, pos := range p.gpos {
			if err != nil {
				p.res[pos] = opResult{err: err}
			} else {
				p.res[pos] = res[i]
			}
		}
	}
	var wg sync.WaitGroup
	here := reads[:0] // decided once: a worker's fill would change the answer
	for k, sh := range reads {
		if k == len(reads)-1 || g.cache.containsKeys(sh, parts[sh].gkeys) {
			here = append(here, sh) // no load to wait for, or the last
			continue
		}
		g.workers.goDo(&wg, func() { read(sh) })
	}
	for _, sh := range here {
		read(sh)
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
	wg.Wait()
	return pend[:0]
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
