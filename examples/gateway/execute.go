package main

import (
	"hash/maphash"
	"slices"
	"strings"

	"github.com/tidwall/redcon"
)

// Executing one chunk of a connection's pipeline (session.execute): its
// commands grouped into runs that execute concurrently, ordered by their
// keys' hashes, and the scratch memory the session reuses between chunks.
// A run of plain commands is in pipeline.go; one command's lookup and call
// in server.go.

// pipeScratch is the memory a session reuses from one pipeline chunk to the
// next: a session runs one chunk at a time on its own goroutine, and nothing
// keeps any of it once the chunk's replies are written (the commands and
// ops they point to may be kept; these slices and maps are not). Reusing it
// spared the garbage collector most of the gateway's allocation under
// pipelined load.
type pipeScratch struct {
	replies       []any
	run           []job
	read, written map[uint64]bool // hashes of the keys of the current run
	hashes        []uint64        // of one command's keys
	plain         []plainCmd
	refs          []plainRef
	parts         []*plainPart
	order         []int      // the shards a plain run uses
	inval         []shardKey // the keys a plain run's SETs invalidate in the tier
	pend          []pendingPart
	protos        []int // the protocol of each reply of the chunk
}

// execute runs one chunk of a pipeline and returns the replies in order.
// Commands are grouped into runs that execute concurrently: a run ends before
// a connection command (AUTH, HELLO, ...) and before a command whose keys
// conflict with the run's (a write after a read or write of the same key, a
// read after a write), so the connection sees its commands in order.
func (ss *session) execute(cmds []redcon.Command) []any {
	sp := &ss.pipe
	replies := sp.reset(len(cmds))
	ss.solo = len(cmds) == 1
	if len(cmds) == 1 && !ss.txs.multi { // no pipeline: nothing to schedule
		ss.executeOne(cmds, replies)
		sp.protos[0] = ss.proto
		return replies
	}
	run := sp.run[:0]
	read, written := sp.keySets()
	most := 0 // the most keys of a run, in read and written
	defer func() {
		sp.run = run[:0]
		if most > maxKeptKeys { // a cleared map keeps its room
			sp.read, sp.written = nil, nil
		}
	}()
	// A run holds the admission of each command it admitted until it is
	// answered, and a plain run admits all of its commands before it sends
	// any: a run whose cost (keys) passed the admission limit would wait in
	// shed's queue for capacity only it holds. It ends before that.
	limit, cost := int64(ss.g.limiter.Limit()), int64(0)
	flush := func() {
		ss.runJobs(run, cmds, replies)
		run = run[:0]
		cost = 0
		most = max(most, len(read)+len(written))
		clear(read)
		clear(written)
	}
	for i, cmd := range cmds {
		sp.protos[i] = ss.proto                   // only connection commands change it
		if r := ss.unauthRefused(cmd); r != nil { // logged out: no run pending
			replies[i] = r
			return replies[:i+1]
		}
		spec, name, bad := ss.lookup(cmd.Args)
		if ss.txs.multi && !txControl[name] {
			replies[i] = ss.queue(cmd, spec, bad)
			continue
		}
		if bad != nil {
			if name == "EXEC" {
				flush() // the commands before it run first: it may end the transaction
			}
			replies[i] = ss.rejected(name, bad)
			continue
		}
		keys := keyHashes(sp.hashes[:0], spec.layout, cmd.Args)
		sp.hashes = keys
		var c int64 // the command's admission cost
		if spec.kind == kindRead || spec.kind == kindWrite {
			if c = spec.cost(cmd.Args); len(run) > 0 && cost+c > limit {
				flush()
			}
		}
		if spec.kind == kindConn || spec.inOrder {
			flush()
			replies[i] = ss.call(spec, name, cmd.Args)
			sp.protos[i] = ss.proto // HELLO 3 answers in RESP3
			if ss.quit {
				return replies[:i+1]
			}
			continue
		}
		orderKeys(spec.kind, name, keys, read, written, flush)
		run = append(run, job{i, spec, name})
		cost += c
		if ss.txs.tx != nil || name == "KVSCAN" {
			// Reads after WATCH use the transaction, which is not safe for
			// concurrent use; a range read runs alone, before later writes.
			flush()
		}
	}
	flush()
	return replies
}

// keySets returns the maps of the keys a run reads and writes, made on first
// use.
func (sp *pipeScratch) keySets() (read, written map[uint64]bool) {
	if sp.read == nil {
		sp.read, sp.written = map[uint64]bool{}, map[uint64]bool{}
	}
	return sp.read, sp.written
}

// reset sizes the scratch for a chunk of n commands and returns its replies,
// all nil. The last chunk's replies are cleared: they are written by now.
func (sp *pipeScratch) reset(n int) []any {
	clear(sp.replies)
	sp.replies = slices.Grow(sp.replies[:0], n)[:n]
	sp.protos = slices.Grow(sp.protos[:0], n)[:n]
	return sp.replies
}

// orderKeys keeps a command of kind after the commands of the run that its
// keys conflict with: it calls flush, which runs the run and empties read and
// written, when the command reads a key the run writes, writes a key the run
// reads or writes, or is a range read (KVSCAN) after any write. It then adds
// the command's keys to read or written. A command of another kind has no
// keys to order.
func orderKeys(kind cmdKind, name string, keys []uint64, read, written map[uint64]bool, flush func()) {
	switch kind {
	case kindRead:
		if anyIn(keys, written) || name == "KVSCAN" {
			flush() // a range read conflicts with any write before it
		}
		for _, k := range keys {
			read[k] = true
		}
	case kindWrite:
		if anyIn(keys, written) || anyIn(keys, read) {
			flush()
		}
		for _, k := range keys {
			written[k] = true
		}
	}
}

// executeOne runs a chunk of one command, outside a transaction, and writes
// its reply to replies[0].
func (ss *session) executeOne(cmds []redcon.Command, replies []any) {
	if r := ss.unauthRefused(cmds[0]); r != nil {
		replies[0] = r
		return
	}
	spec, name, bad := ss.lookup(cmds[0].Args)
	switch {
	case bad != nil:
		replies[0] = ss.rejected(name, bad)
	case name == "MGET":
		// A lone MGET runs as a plain run of one: the same batch item per
		// shard as through Gateway.run, on the session's reused memory.
		sp := &ss.pipe
		sp.run = append(sp.run[:0], job{0, spec, name})
		if !ss.runPlain(sp.run, cmds, replies) {
			replies[0] = ss.call(spec, name, cmds[0].Args)
		}
	default:
		replies[0] = ss.call(spec, name, cmds[0].Args)
	}
}

// runJobs runs a pipeline run, whose commands may run in any order, and
// writes their replies: as one plain run if it qualifies (runPlain), else
// each command on its own, all but the last handed to workers.
func (ss *session) runJobs(run []job, cmds []redcon.Command, replies []any) {
	switch len(run) {
	case 0:
	case 1:
		replies[run[0].i] = ss.call(run[0].spec, run[0].name, cmds[run[0].i].Args)
	default:
		if ss.runPlain(run, cmds, replies) {
			return
		}
		var wg taskGroup
		last := run[len(run)-1]
		var hits []job // GETs the caching tier holds: served here, no hand-off
		for _, j := range run[:len(run)-1] {
			if ss.cachedGet(j.spec, cmds[j.i].Args) {
				hits = append(hits, j)
				continue
			}
			ss.g.workers.goDo(&wg, func() { replies[j.i] = ss.call(j.spec, j.name, cmds[j.i].Args) })
		}
		for _, j := range hits {
			replies[j.i] = ss.call(j.spec, j.name, cmds[j.i].Args)
		}
		replies[last.i] = ss.call(last.spec, last.name, cmds[last.i].Args) // one hand-off fewer
		wg.Wait()
	}
}

// job is one command of a pipeline run: its index in the chunk and its spec.
type job struct {
	i    int
	spec *cmdSpec
	name string
}

// rejected is the reply to a command refused before it ran (bad: wrong
// arity, too many arguments). As in Redis, a refused command fails the open
// transaction (EXEC then answers EXECABORT), and a refused EXEC discards the
// transaction and the WATCHes at once.
func (ss *session) rejected(name string, bad any) any {
	if ss.txs.multi {
		ss.txs.aborted = true
	}
	if e, ok := bad.(respErr); ok && name == "EXEC" {
		ss.resetTx()
		return respErr("EXECABORT Transaction discarded because of: " + strings.TrimPrefix(string(e), "ERR "))
	}
	return bad
}

// txControl are the commands that act on a transaction rather than join it.
var txControl = map[string]bool{"EXEC": true, "DISCARD": true, "MULTI": true, "WATCH": true, "QUIT": true, "RESET": true}

func anyIn(keys []uint64, set map[uint64]bool) bool {
	for _, k := range keys {
		if set[k] {
			return true
		}
	}
	return false
}

// conflictSeed seeds the key hashes that order a pipeline's commands.
var conflictSeed = maphash.MakeSeed()

// keyHashes appends the hashes of the keys of a command with args to hs. The
// conflict check of execute compares hashes rather than keys, so that it
// copies no key: two keys whose hashes collide only end a run early, which
// keeps the order the connection sent (a pipelined SET took two allocations
// for the check, the most of any part of the gateway).
func keyHashes(hs []uint64, layout keyLayout, args [][]byte) []uint64 {
	from, to, step := layout.span(args)
	for i := from; i < to; i += step {
		hs = append(hs, maphash.Bytes(conflictSeed, args[i]))
	}
	return hs
}

// unauthRefused holds a multi-bulk command that the reader parsed while the
// connection was authenticated to the limits of one that is not (reader.go,
// unauthMaxArgs and unauthMaxBulk), once a RESET before it in the same read
// logged the connection out: Redis reads each command after the one before
// ran, so the commands after such a RESET are read as unauthenticated, and
// one past the limits answers the protocol error and ends the connection.
// The gateway answered NOAUTH to it and read on. It returns that error and
// sets quit, or nil. Inline commands have no such limits.
func (ss *session) unauthRefused(cmd redcon.Command) any {
	if ss.tenant != nil || cmd.Raw == nil {
		return nil
	}
	err := error(nil)
	if len(cmd.Args) > unauthMaxArgs {
		err = errUnauthMulti
	} else if slices.ContainsFunc(cmd.Args, func(a []byte) bool { return len(a) > unauthMaxBulk }) {
		err = errUnauthBulk
	}
	if err == nil {
		return nil
	}
	ss.quit, ss.refused = true, true
	if srv := ss.srv(); srv != nil {
		srv.protoErrors.Add(1)
	}
	return respErr("ERR " + err.Error())
}
