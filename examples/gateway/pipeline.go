package main

import (
	"context"
	"slices"
	"strings"
	"time"
	"unsafe"

	"github.com/tidwall/redcon"
)

// runPlain runs a pipeline run made only of plain GETs, SETs (no options) and
// MGETs as one batch item per shard, the way a multi-key command runs, instead
// of a goroutine and a batcher call per command: at pipeline 16, the hand-off to a
// worker, the coalescing group and the batcher per command cost more CPU than
// the backend call. The run is admitted as a whole, at the cost of all its
// keys (admitRun: execute ends a run before its cost passes the admission
// limit), and refused as a whole; each command is still metered and answered
// on its own; identical GETs of the run share one op, unless a SET of their
// shard comes between them (plainPart.since); a SET drops its key's
// in-flight fetch when it returns, as in the per-command path. The run holds
// no read and write of one key (execute splits runs there); a shard still
// reads the GETs after a write at a later version than those before it.
//
// With the caching tier on, the run's reads go through the cache shard by
// shard (cachedParts): the keys a shard's cache misses are loaded as one batch
// item and fill the cache.
//
// It reports false, having done nothing, when the run does not qualify (traces
// are on, a transaction is open, or another command).
// GETs of this path do not join fetches of other connections in flight (nor,
// with the tier on, the cache's loads of other connections); they are still
// de-duplicated within a batch.
func (ss *session) runPlain(run []job, cmds []redcon.Command, replies []any) bool {
	g := ss.g
	if g.tracer != nil || ss.tenant == nil || ss.txs.tx != nil {
		return false
	}
	keys, ok := plainKeys(run, cmds)
	if !ok {
		return false
	}
	ctx := context.Background()
	// The run's commands arrived together and are answered together: one
	// clock reading stamps them all, another ends them (the clock is a
	// visible share of a run's CPU on some virtual machines).
	start := time.Now()
	sp := &ss.pipe
	parts := sp.plainParts(g.backend.Shards(), keys)
	cs := slices.Grow(sp.plain[:0], len(run))[:len(run)]
	all := slices.Grow(sp.refs[:0], keys) // the refs of every command, in one array
	defer func() {
		clear(cs) // drop the funcs and errors; the arrays stay for the next run
		sp.plain, sp.refs = cs[:0], all[:0]
		for _, p := range parts {
			p.forget()
		}
		if keys > maxKeptKeys {
			sp.dropPlain()
		}
	}()
	g.n.commands.Add(uint64(len(run)))
	ss.tenant.requests.Add(uint64(len(run)))
	done, release, refused := g.admitRun(ctx, ss.tenant, runPrio(ss.tenant, run), int64(keys), len(run), start)
	if refused != nil {
		ss.refusePlain(run, replies, refused, time.Since(start))
		return true
	}
	// A panic (a bug: serveConn closes the connection) gives the admission
	// back too, and counts the run's commands as failed requests, as call
	// counts a command's: only connection_panics counted them.
	failed, answered := true, false
	defer func() {
		done(!failed)
		release()
		if !answered {
			ss.panickedPlain(run, replies, time.Since(start))
		}
	}()
	order, all := ss.planPlain(run, cmds, cs, parts, all)
	sp.order = order[:0]
	switch {
	case len(order) == 0:
	case g.cache != nil:
		sp.pend = g.cachedParts(ctx, ss.tenant.cfg.Name, order, parts, sp.pend)
	default:
		// The batch may keep its items' ops only until it answers, which
		// submitParts waits for: the ops arrays are the parts' again after.
		sp.pend = g.submitParts(ctx, ss.tenant.cfg.Name, order, sp.pend, func(sh int) ([]op, *[]opResult, *error) {
			p := parts[sh]
			return p.ops, &p.res, &p.err
		})
	}
	failed = ss.answerPlain(cs, parts, replies, time.Since(start))
	answered = true
	return true
}

// plainKeys returns how many keys a run's commands name, and false if a
// command is not a plain GET, SET or MGET.
func plainKeys(run []job, cmds []redcon.Command) (keys int, ok bool) {
	for _, j := range run {
		n := len(cmds[j.i].Args)
		switch {
		case j.spec.name == "GET" && n == 2, j.spec.name == "SET" && n == 3:
			keys++
		case j.spec.name == "MGET":
			keys += n - 1
		default:
			return 0, false
		}
	}
	return keys, true
}

// planPlain puts the keys' ops of each command of run in their shards'
// parts, filling cs (one per command) and appending every command's refs to
// all. It returns the shards used, in the order first used (in the
// session's reused array), and all.
func (ss *session) planPlain(run []job, cmds []redcon.Command, cs []plainCmd, parts []*plainPart, all []plainRef) (order []int, _ []plainRef) {
	g := ss.g
	order = ss.pipe.order[:0]
	for k, j := range run {
		a := &cs[k]
		args := cmds[j.i].Args
		a.j = j
		lo := len(all)
		for _, key := range args[1:] {
			// A key lives no longer than its command (on its way to the
			// backend, or to an invalidation of the caching tier, which
			// keeps no key): it shares the command's bytes (argString), as
			// a SET's value does. The tier copies the keys it loads, which
			// its cache keeps (fillMissed).
			o := op{kind: opGet, key: argString(key)}
			if j.spec.name == "SET" {
				o.kind, o.value, a.write = opSet, args[2], true
				a.key = o.key
			}
			sh := g.shard(o.key)
			p := parts[sh]
			if !p.used {
				p.used = true
				order = append(order, sh)
			}
			pos, dup := p.getIndex(o.key)
			if a.write || !dup {
				pos = len(p.ops)
				p.ops = append(p.ops, o)
				if a.write {
					p.since = len(p.ops)
				} else {
					p.addGet(o.key, pos)
				}
			} else if g.cache != nil {
				p.shared = append(p.shared, pos) // counted with the lookup of ops[pos]
			}
			all = append(all, plainRef{sh, pos})
			if a.write {
				break // args[2] is the value
			}
		}
		a.refs = all[lo:len(all):len(all)]
	}
	return order, all
}

// answerPlain writes the reply of each command of a plain run whose parts
// have answered and its metrics, and, for a SET, drops its key's in-flight
// fetch and cached value. It reports whether a command failed (the caller
// settles the run's admission).
func (ss *session) answerPlain(cs []plainCmd, parts []*plainPart, replies []any, took time.Duration) (anyFailed bool) {
	g, t := ss.g, ss.tenant
	// The tier forgets the SETs' keys together, before the replies go out
	// (read-your-writes without waiting for the feed): one Apply per shard
	// looks them up ahead.
	inval := ss.pipe.inval[:0]
	defer func() {
		if len(inval) > 0 {
			g.cache.invalidateAll(inval)
		}
		clear(inval)
		ss.pipe.inval = inval[:0]
	}()
	for k := range cs {
		a := &cs[k]
		if a.write {
			g.flights.Forget(a.key) // a later read must not join an older fetch
			if g.cache != nil {
				inval = append(inval, shardKey{a.refs[0].shard, a.key})
			}
		}
		reply := plainReply(a.j.spec.name == "MGET", a.write, len(a.refs), func(i int) *opResult {
			p := parts[a.refs[i].shard]
			if p.err != nil {
				return &opResult{err: p.err}
			}
			return &p.res[a.refs[i].pos]
		})
		_, failed := reply.(respErr)
		if failed {
			g.n.errors.Add(1)
			anyFailed = true
		}
		g.metrics.observe(t, a.j.spec, !failed, took)
		replies[a.j.i] = reply
	}
	return anyFailed
}

// refusePlain answers every command of a plain run whose admission was
// refused with the refusal (admitRun counted them shed or throttled).
func (ss *session) refusePlain(run []job, replies []any, refused error, took time.Duration) {
	g, t := ss.g, ss.tenant
	g.n.errors.Add(uint64(len(run)))
	for _, j := range run {
		g.metrics.observe(t, j.spec, false, took)
		replies[j.i] = errReply(refused)
	}
}

// panickedPlain counts the commands of a plain run that panicked after its
// admission as failed requests, but for those answerPlain metered before
// the panic (they have their reply).
func (ss *session) panickedPlain(run []job, replies []any, took time.Duration) {
	g, t := ss.g, ss.tenant
	for _, j := range run {
		if replies[j.i] == nil {
			g.n.errors.Add(1)
			g.metrics.observe(t, j.spec, false, took)
		}
	}
}

// plainPart is what a plain run sends to one shard: its ops (a GET of a key
// the run reads twice is sent once) and their results.
type plainPart struct {
	used    bool
	ops     []op
	res     []opResult
	err     error
	gets    map[string]int // key -> index in ops of its GET, once indexed
	indexed bool           // gets holds every GET of ops
	// since is the index in ops after the part's last write: a GET shares
	// only a GET from there on. The shard reads the GETs after a write at a
	// version after it, and an MGET's key that shared a GET from before the
	// write was read at another version than its other keys: an MSET of
	// both committed in between came back half applied.
	since int

	// With the caching tier on (cachedParts): the GETs' keys and the
	// writes, each with its index in ops.
	gkeys  []string
	gpos   []int
	wops   []op
	wpos   []int
	vals   []cached // the GETs' values, as the cache holds them
	missed []int    // indexes in gkeys of the GETs the cache missed
	shared []int    // for each GET that shares another's op, the op's index in ops
}

// smallPart is how many ops a part finds its GETs among by a scan; a larger
// part indexes them. At pipeline 1 a part holds a few keys, and clearing a
// map for each run cost more than the scans.
const smallPart = 8

// getIndex returns the index in ops of the part's GET of key since its last
// write, if it has one.
func (p *plainPart) getIndex(key string) (int, bool) {
	if p.indexed {
		i, ok := p.gets[key]
		return i, ok && i >= p.since
	}
	for i := p.since; i < len(p.ops); i++ {
		if p.ops[i].kind == opGet && p.ops[i].key == key {
			return i, true
		}
	}
	return 0, false
}

// addGet records that ops[pos] is the part's GET of key.
func (p *plainPart) addGet(key string, pos int) {
	if !p.indexed && len(p.ops) > smallPart {
		for i := range p.ops {
			if p.ops[i].kind == opGet {
				p.gets[p.ops[i].key] = i
			}
		}
		p.indexed = true
	}
	if p.indexed {
		p.gets[key] = pos
	}
}

// argString returns a string that shares b's bytes instead of copying them.
// A command's arguments own their bytes and nothing writes to them
// (respReader), so the string stays intact; but it keeps the whole read's
// buffer alive, so it is only for what lives no longer than the command (a
// key on its way to the backend or to a cache invalidation), never for what
// is kept. The caching tier's feeds use it too, for the keys they hand to
// cache.Apply, which keeps none.
func argString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// plainRef is where one key's op is: its shard's part, and its index there.
type plainRef struct{ shard, pos int }

// plainCmd is one command of a plain run.
type plainCmd struct {
	j     job
	refs  []plainRef // one per key, in the command's order
	key   string     // a SET's key
	write bool
}

// plainParts returns one empty part per shard, reused from the session's last
// run (ops arrays with room for keys ops).
func (sp *pipeScratch) plainParts(shards, keys int) []*plainPart {
	for len(sp.parts) < shards {
		sp.parts = append(sp.parts, &plainPart{gets: map[string]int{}})
	}
	for _, p := range sp.parts[:shards] {
		p.forget()
		*p = plainPart{ops: slices.Grow(p.ops[:0], keys), gets: p.gets,
			gkeys: p.gkeys[:0], gpos: p.gpos[:0], wops: p.wops[:0], wpos: p.wpos[:0],
			vals: p.vals[:0], missed: p.missed[:0], shared: p.shared[:0]}
	}
	return sp.parts[:shards]
}

// maxKeptKeys is the most keys of a run whose scratch a session keeps for
// the next run (a pipeline of max_pipeline plain commands has at most 128):
// a plain run sizes every shard's part for all of its keys, and a cleared
// map keeps its room, so keeping the scratch of a larger run (an MGET of
// many keys) held megabytes on an idle connection for as long as it stayed
// open. A larger run allocates its own.
const maxKeptKeys = 256

// dropPlain leaves the arrays and maps of the plain runs to the garbage
// collector, once a run of more than maxKeptKeys keys is answered.
func (sp *pipeScratch) dropPlain() {
	sp.plain, sp.refs, sp.parts, sp.inval = nil, nil, nil, nil
}

// forget drops what the part holds of its run, keeping its arrays: its keys
// and SET values share the bytes of the read they came in (argString), which
// the session would otherwise keep alive until its next plain run (for as
// long as an idle connection stays open), and its results are the replies'.
// runPlain calls it once the run is answered.
func (p *plainPart) forget() {
	clear(p.ops)
	clear(p.gkeys)
	clear(p.wops)
	clear(p.vals)
	if p.indexed {
		clear(p.gets)
	}
	p.ops, p.gkeys, p.wops, p.vals = p.ops[:0], p.gkeys[:0], p.wops[:0], p.vals[:0]
	p.res, p.err, p.indexed, p.since = nil, nil, false, 0
}

// plainReply builds the reply of a plain GET, SET or MGET from the results of
// its n keys (res(i) for key i). A GET's value is returned as a bulkRef to
// the result, which the batch allocated and nothing changes after: putting
// the []byte itself in the reply's interface would allocate.
func plainReply(mget, write bool, n int, res func(i int) *opResult) any {
	if !mget {
		r := res(0)
		switch {
		case r.err != nil:
			return errReply(r.err)
		case write:
			return simple("OK")
		case r.found:
			return bulkRef{&r.value}
		}
		return nullReply{}
	}
	return mgetReply(n, res)
}

// mgetReply is MGET's reply from the results of its n keys (res(i) for key i):
// the values, null for a missing key, or the first error for the whole command
// (Redis has no per-key MGET error). A key of another type is null, as
// Redis's MGET reads it: its op went to the shard as a GET, which answered
// WRONGTYPE, when the batch mixed it with writes.
func mgetReply(n int, res func(i int) *opResult) any {
	out := make(bulks, n)
	for i := range out {
		r := res(i)
		switch {
		case r.err != nil && isWrongType(r.err):
		case r.err != nil:
			return errReply(r.err)
		case r.found:
			out[i] = r.value // nil reads as null, as a nil []byte reply does
		}
	}
	return out
}

// isWrongType reports whether err is Redis's WRONGTYPE reply (a key of
// another type than the command reads).
func isWrongType(err error) bool { return strings.HasPrefix(err.Error(), "WRONGTYPE ") }

// shardKey is a key and the shard it lives on.
type shardKey struct {
	shard int
	key   string
}

// runPrio returns the shed priority of a run admitted as one (admitRun): the
// highest of its commands' for t.
func runPrio(t *tenant, run []job) int {
	var p uint8
	for _, j := range run {
		p = max(p, t.prio[j.spec.idx])
	}
	return int(p)
}
