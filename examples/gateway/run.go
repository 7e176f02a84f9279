package main

import (
	"context"
)

// Running a command's ops once admitted (Gateway.run): a multi-key command
// split into one batch item per shard, a multi-key read through the caching
// tier, and a single op through the cache, the coalescing group or its
// shard's batch. The batch path itself (flush, submit) is in gateway.go.

// run executes ops for tenant t (already admitted): each op goes to its
// shard's batch, reads through the coalescing group. results[i] answers ops[i].
func (g *Gateway) run(ctx context.Context, t *tenant, ops []op) []opResult {
	results := make([]opResult, len(ops))
	if len(ops) == 1 {
		results[0] = g.one(ctx, t, ops[0])
		return results
	}
	var tr *cmdTrace
	if g.tracer != nil {
		tr = traceOf(ctx)
	}
	primary := shardReads(ctx)
	if g.cache != nil && allGets(ops) && !primary {
		if !g.cachedAll(ops) {
			return g.runCached(ctx, t, ops, tr)
		}
		for i, o := range ops { // every key a hit: read them here
			results[i] = g.one(ctx, t, o)
		}
		return results
	}
	// A multi-key command becomes one batch item per shard: one wait per
	// shard rather than per key. Its GETs do not coalesce with other
	// commands' (single GETs still do, and de-duplicate within a batch).
	byShard, order := g.byShard(ops)
	type shardPart struct {
		ops []op
		res []opResult
		err error
	}
	parts := make(map[int]*shardPart, len(order))
	for _, sh := range order {
		idx := byShard[sh]
		p := &shardPart{ops: make([]op, len(idx))}
		for j, i := range idx {
			p.ops[j] = ops[i]
			p.ops[j].primary = primary
			// A write's keys on one shard apply as one (MSET, DEL).
			p.ops[j].joint = j > 0 && ops[i].kind != opGet && ops[i].kind != opExists
		}
		parts[sh] = p
	}
	g.submitParts(ctx, t.cfg.Name, order, nil, func(sh int) ([]op, *[]opResult, *error) {
		p := parts[sh]
		return p.ops, &p.res, &p.err
	})
	for _, sh := range order {
		p := parts[sh]
		if tr != nil {
			var batch int32 // a failed part touched its shard too (no size comes back)
			if p.err == nil {
				batch = p.res[0].batch
			}
			tr.note(sh, batch, viaBatch)
		}
		for j, i := range byShard[sh] {
			if p.err != nil {
				results[i] = opResult{err: p.err}
			} else {
				results[i] = p.res[j]
			}
			if ops[i].kind != opGet && ops[i].kind != opExists {
				g.flights.Forget(ops[i].key)
				if g.cache != nil {
					g.cache.invalidate(sh, ops[i].key) // read-your-writes without waiting for the feed
				}
			}
		}
	}
	return results
}

// cachedAll reports whether the caching tier holds every key of ops.
func (g *Gateway) cachedAll(ops []op) bool {
	for _, o := range ops {
		if !g.cache.contains(g.shard(o.key), o.key) {
			return false
		}
	}
	return true
}

// byShard groups ops by shard: the indexes of each shard's ops, and the
// shards in the order their first op comes.
func (g *Gateway) byShard(ops []op) (map[int][]int, []int) {
	byShard := map[int][]int{}
	var order []int
	for i, o := range ops {
		sh := g.shard(o.key)
		if _, ok := byShard[sh]; !ok {
			order = append(order, sh)
		}
		byShard[sh] = append(byShard[sh], i)
	}
	return byShard, order
}

// runCached runs a multi-key read (MGET) through the caching tier: each
// shard's keys go through its cache at once, and the keys a shard's cache
// misses go to the shard as one batch item (cache.GetMany), rather than a
// read, a fill and a batch item per key. The shards' parts run at the same
// time (a worker for each but the last that has a key to load).
func (g *Gateway) runCached(ctx context.Context, t *tenant, ops []op, tr *cmdTrace) []opResult {
	results := make([]opResult, len(ops))
	detached := ctx
	if ctx.Done() != nil {
		detached = context.WithoutCancel(ctx) // the cache's fills outlive a caller that leaves
	}
	byShard, order := g.byShard(ops)
	do := func(sh int) {
		idx := byShard[sh]
		keys := make([]string, len(idx))
		for j, i := range idx {
			keys[j] = ops[i].key
		}
		grp := group{tenant: t.cfg.Name, shard: sh}
		var batch int32
		res, err := g.cache.getMany(detached, sh, keys, func(ctx context.Context, miss []string) ([]opResult, error) {
			tr.fetched()
			rs, err := g.submit(ctx, grp, getOps(miss))
			if err == nil {
				batch = rs[0].batch
			}
			return rs, err
		})
		tr.note(sh, batch, viaCache)
		for j, i := range idx {
			if err != nil {
				results[i] = opResult{err: err}
			} else {
				results[i] = res[j]
			}
		}
	}
	// A shard whose keys the cache all holds is read here, key by key (no
	// load to share, and nothing to allocate): only a part that must load is
	// worth GetMany and a hand-off. (A key may be looked up three times on
	// this path: cachedAll, containsAll, GetMany. One scan recording each
	// shard's misses instead cost 7% more on all-hit MGETs, with 2 more
	// allocations, in BenchmarkExecute/MGETx10+cache: all-hit reads are the
	// common case, so they keep the cheap check.)
	hits := func(sh int) {
		for _, i := range byShard[sh] {
			results[i] = g.one(ctx, t, ops[i])
		}
	}
	var wg taskGroup
	var here []int
	for _, sh := range order[:len(order)-1] {
		if g.cache.containsAll(sh, ops, byShard[sh]) {
			here = append(here, sh)
			continue
		}
		g.workers.goDo(&wg, func() { do(sh) })
	}
	for _, sh := range here {
		hits(sh)
	}
	if last := order[len(order)-1]; g.cache.containsAll(last, ops, byShard[last]) {
		hits(last)
	} else {
		do(last)
	}
	wg.Wait()
	return results
}

// one runs a single op: through the caching tier or the coalescing group for
// a GET, else straight to its shard's batch.
func (g *Gateway) one(ctx context.Context, t *tenant, o op) opResult {
	return g.oneFrom(ctx, t, o, nil)
}

// oneFrom is one for a GET of the connection whose hot-key reader is rd (nil:
// none named), which tells the hot-key linger who comes back (hotkeys.go).
func (g *Gateway) oneFrom(ctx context.Context, t *tenant, o op, rd *hotReader) opResult {
	grp := group{tenant: t.cfg.Name, shard: g.shard(o.key)}
	detached := ctx
	if ctx.Done() != nil {
		detached = context.WithoutCancel(ctx)
	}
	var tr *cmdTrace
	if g.tracer != nil {
		tr = traceOf(ctx)
	}
	var r opResult
	var err error
	o.primary = o.kind == opGet && shardReads(ctx)
	shared := o.kind == opGet && (g.cache != nil || g.coalesceOn.Load()) && !o.primary
	switch {
	case shared && g.cache != nil:
		r, err = g.getCached(detached, grp, o, tr)
	case shared && g.coalesceOn.Load():
		r, err = g.getCoalesced(ctx, detached, grp, o, rd, tr)
	default:
		r, err = g.submitOne(ctx, grp, o)
		tr.note(grp.shard, r.batch, viaBatch)
		if o.kind != opGet && o.kind != opExists {
			// A read that starts after this write returns must not join a fetch
			// that started before it: drop the key's in-flight fetch.
			g.flights.Forget(o.key)
			if g.cache != nil {
				g.cache.invalidate(grp.shard, o.key) // read-your-writes without waiting for the feed
			}
		}
	}
	if err != nil {
		return opResult{err: err}
	}
	return r
}

// getCached is oneFrom's GET through the caching tier, on detached, the
// caller's context without its cancellation. The cache coalesces its misses
// itself (a fill lock per key).
func (g *Gateway) getCached(detached context.Context, grp group, o op, tr *cmdTrace) (opResult, error) {
	// The cache keeps the value it fills, not the call that read it: the
	// fill notes the call's size for the trace.
	// A traced GET asks first whether the key is cached: one that
	// misses and does not run the fill itself joined another caller's
	// (coalesced), which the cache's answer alone does not tell from a
	// hit. (A fill or an invalidation between the two lookups may still
	// name the wrong one.)
	path := viaCache
	if tr != nil && !g.cache.contains(grp.shard, o.key) {
		path = viaCoalescing
	}
	r, err := g.cache.get(detached, grp.shard, o.key, func(ctx context.Context) (opResult, error) {
		tr.fetched()
		r, err := g.submitOne(ctx, grp, o)
		tr.carried(r.batch)
		return r, err
	})
	tr.note(grp.shard, r.batch, path)
	return r, err
}

// getCoalesced is oneFrom's GET through the coalescing group: the fetch runs
// on detached, the caller's context without its cancellation; a read again
// for linearizability runs on ctx.
func (g *Gateway) getCoalesced(ctx, detached context.Context, grp group, o op, rd *hotReader, tr *cmdTrace) (opResult, error) {
	// Tenants share the key space and the ACL was checked before, so
	// callers of every tenant with the same key share one fetch: nothing
	// else changes the result. The fetch is charged to the tenant that
	// started it.
	// The wait is bounded by the batcher's FlushTimeout, so the caller
	// need not be able to leave early: a context that cannot be cancelled
	// lets the group run the fetch on this goroutine instead of starting
	// one per fetch (a third of the CPU of a GET in a profile), and lets
	// the batcher run the flush on it too.
	// A fetch of a hot key waits a moment for more readers (hotkeys.go).
	var h uint64
	if g.hot.linger.Load() != 0 {
		h = g.hot.hash(o.key)
		g.hot.arrived(h, rd)
	}
	lin := g.linearizable.Load()
	r, err := g.flights.Do(detached, o.key, func(ctx context.Context) (_ opResult, err error) {
		defer recoverTo(&err, &g.n.panics, g.log, "a coalesced fetch")
		tr.fetched()
		g.hot.wait(h)
		defer g.hot.done(h)
		return g.submitOne(ctx, grp, o)
	})
	if lin && err == nil && !r.linear {
		// The fetch was sent with linearizable_reads off (turned on
		// since), so it stayed open to joins after it was sent: this
		// GET may have joined a read older than itself. Read again.
		r, err = g.submitOne(ctx, grp, o)
	}
	// A GET that joined may have started after the value the fetch read
	// expired: it reads the key as absent, as a fetch of its own would. By
	// the backend's clock, which stamped the expiry (the wall clock judged a
	// memkv store's values on a clock apart from the store's: a value it
	// served was answered null).
	if r.found && r.expireAt != 0 && g.expiryNow().UnixNano() >= r.expireAt {
		r = opResult{batch: r.batch}
	}
	tr.note(grp.shard, r.batch, viaCoalescing)
	return r, err
}

// shardReadsKey marks a context whose GETs read their shard: not the caching
// tier (whose hits may be as old as its staleness bound), nor a coalesced
// fetch (which may have started before the caller's WATCH), nor a replica
// of a Redis shard (which may be behind its primary: op.primary).
type shardReadsKey struct{}

// withShardReads returns ctx marked so that its GETs read their shard.
func withShardReads(ctx context.Context) context.Context {
	return context.WithValue(ctx, shardReadsKey{}, true)
}

// shardReads reports whether ctx was marked by withShardReads.
func shardReads(ctx context.Context) bool {
	v, _ := ctx.Value(shardReadsKey{}).(bool)
	return v
}
