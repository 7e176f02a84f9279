package main

import (
	"context"
	"sync"
	"time"

	"github.com/tidwall/redcon"
)

// runPlain runs a pipeline run made only of plain GETs and SETs (no options)
// as one batch item per shard, the way a multi-key command runs, instead of a
// goroutine and a batcher call per command: at pipeline 16, the hand-off to a
// worker, the coalescing group and the batcher per command cost more CPU than
// the backend call. Each command is still admitted, metered and answered on
// its own; identical GETs of the run share one op; a SET drops its key's
// in-flight fetch when it returns, as in the per-command path. The run holds
// no read and write of one key (execute splits runs there), so the order of
// its ops within a shard does not matter.
//
// It reports false, having done nothing, when the run does not qualify (the
// caching tier or traces are on, a transaction is open, another command).
// GETs of this path do not join fetches of other connections in flight; they
// are still de-duplicated within a batch.
func (ss *session) runPlain(run []job, cmds []redcon.Command, replies []any) bool {
	g := ss.g
	if g.cache != nil || g.tracer != nil || ss.tenant == nil || ss.txs.tx != nil {
		return false
	}
	for _, j := range run {
		n := len(cmds[j.i].Args)
		if !(j.spec.name == "GET" && n == 2) && !(j.spec.name == "SET" && n == 3) {
			return false
		}
	}
	t := ss.tenant
	type part struct {
		ops  []op
		res  []opResult
		err  error
		gets map[string]int // key -> index in ops, for the run's identical GETs
	}
	type admitted struct {
		j          job
		shard, pos int
		done       func(bool)
		release    func()
		start      time.Time
		key        string
		write      bool
		refused    error
	}
	ctx := context.Background()
	parts := map[int]*part{}
	var order []int
	cs := make([]admitted, len(run))
	for k, j := range run {
		g.n.commands.Add(1)
		t.requests.Add(1)
		a := &cs[k]
		a.j, a.start = j, time.Now()
		a.done, a.release, a.refused = g.admit(ctx, t, 1)
		if a.refused != nil {
			continue
		}
		args := cmds[j.i].Args
		o := op{kind: opGet, key: string(args[1])}
		if j.spec.name == "SET" {
			o.kind, o.value, a.write = opSet, args[2], true
		}
		a.key, a.shard = o.key, g.shard(o.key)
		p := parts[a.shard]
		if p == nil {
			p = &part{}
			parts[a.shard] = p
			order = append(order, a.shard)
		}
		if !a.write {
			if i, dup := p.gets[o.key]; dup {
				a.pos = i
				continue
			}
			if p.gets == nil {
				p.gets = map[string]int{}
			}
			p.gets[o.key] = len(p.ops)
		}
		a.pos = len(p.ops)
		p.ops = append(p.ops, o)
	}
	submit := func(sh int) {
		p := parts[sh]
		p.res, p.err = g.submit(ctx, group{tenant: t.cfg.Name, shard: sh}, p.ops)
	}
	if len(order) > 0 {
		var wg sync.WaitGroup
		for _, sh := range order[:len(order)-1] {
			g.workers.goDo(&wg, func() { submit(sh) })
		}
		submit(order[len(order)-1])
		wg.Wait()
	}
	for k := range cs {
		a := &cs[k]
		if a.refused != nil {
			g.n.errors.Add(1)
			g.metrics.observe(t, a.j.spec, false, time.Since(a.start))
			replies[a.j.i] = errReply(a.refused)
			continue
		}
		p := parts[a.shard]
		var r opResult
		if p.err != nil {
			r.err = p.err
		} else {
			r = p.res[a.pos]
		}
		if a.write {
			g.flights.Forget(a.key) // a later read must not join an older fetch
		}
		var reply any
		switch {
		case r.err != nil:
			reply = errReply(r.err)
		case a.write:
			reply = simple("OK")
		case r.found:
			reply = r.value
		default:
			reply = nullReply{}
		}
		_, failed := reply.(respErr)
		if failed {
			g.n.errors.Add(1)
		}
		a.done(!failed)
		a.release()
		g.metrics.observe(t, a.j.spec, !failed, time.Since(a.start))
		replies[a.j.i] = reply
	}
	return true
}
