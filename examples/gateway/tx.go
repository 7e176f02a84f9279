package main

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/redcon"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

// txState is a connection's WATCH/MULTI state. Transactions run through package
// txn on one shard: the gateway keeps the bookkeeping (read set, buffered
// writes, read-your-writes) and sends one commit that the shard validates
// optimistically (memkv by versions, Redis by key states: redisTxEngine). All
// keys of a transaction must map to one shard (use a hash tag: {user1}:a and
// {user1}:b share a shard), as in Redis Cluster.
type txState struct {
	tx      *txn.Tx
	eng     txn.Engine
	shard   int
	multi   bool
	queued  []redcon.Command
	data    int  // the data commands among queued (the others: UNWATCH)
	cost    int  // their admission cost: their keys, at least 1 each, as outside MULTI
	aborted bool // a command failed to queue: EXEC answers EXECABORT
	// wrote: the connection wrote outside MULTI since WATCH; its reads no
	// longer come from the transaction's snapshot, which would hide its
	// own write, and on memkv EXEC runs at the current version (rebase).
	wrote bool
	// watched: the keys WATCH named, each with the version of the WATCH
	// that named it first, from which EXEC checks it once the transaction
	// is rebased. At most max_args of them (cmdWatch).
	watched map[string]uint64
	// reads: the keys read through the transaction after WATCH (callTx),
	// each held until EXEC; at most max_args of them.
	reads int
	// checks: after a rebase, the checks that the watched keys did not
	// change from their WATCH on, one per version; before one, the
	// transactions a later WATCH moved on from (advance). EXEC commits them
	// before the transaction.
	checks []*txn.Tx
}

// txOptions are the options of the gateway's transactions: no memory
// budget. What one buffers is bounded by what MULTI queued (max_tx_commands
// commands of max_request_bytes at most), which the gateway holds anyway,
// and its reads by max_args keys. txn's default budget (16 MiB) refused a
// write inside EXEC, in EXEC's reply, while the shard applied the others,
// where Redis runs the whole transaction (TestTxLargerThanStoreBounds).
var txOptions = txn.Options{MemoryBudget: -1}

var (
	errCrossShard = errors.New("CROSSSLOT keys of one transaction must map to one shard (use a {hash tag})")
	errTxBackend  = errors.New("ERR WATCH/MULTI/EXEC are not available on this backend")
)

// txEngine returns a txn engine for one transaction on shard, or nil for a
// backend without one. On Redis it is new for each transaction: it holds the
// states the transaction read.
func (g *Gateway) txEngine(shard int) txn.Engine {
	if b, ok := asMemkv(g.backend); ok {
		return b.stores[shard]
	}
	if b, ok := asRedis(g.backend); ok {
		return newRedisTxEngine(b.shards[shard])
	}
	return nil
}

// bindShard starts the transaction on the shard of keys, or checks that keys
// belong to the shard it already uses.
func (s *session) bindShard(keys []string) error {
	for _, k := range keys {
		sh := s.g.shard(k)
		if s.txs.tx == nil {
			eng := s.g.txEngine(sh)
			if eng == nil {
				return errTxBackend
			}
			tx, err := txn.Begin(eng, txOptions)
			if err != nil {
				return err
			}
			s.txs.tx, s.txs.eng, s.txs.shard = tx, eng, sh
		} else if sh != s.txs.shard {
			return errCrossShard
		}
	}
	return nil
}

// onTxShard reports whether every key maps to the transaction's shard.
func (s *session) onTxShard(keys []string) bool {
	for _, k := range keys {
		if s.g.shard(k) != s.txs.shard {
			return false
		}
	}
	return true
}

func (s *session) resetTx() {
	if s.txs.tx != nil {
		s.txs.tx.Rollback()
	}
	for _, c := range s.txs.checks {
		c.Rollback()
	}
	s.txs = txState{}
}

// atVersion is an engine whose transactions begin at version rv.
type atVersion struct {
	txn.Engine
	rv uint64
}

func (e atVersion) ReadVersion() uint64 { return e.rv }

// rebase moves a memkv transaction whose connection wrote outside MULTI
// since WATCH to the current version, as Redis runs EXEC on the data as it
// is: its queued commands then see the connection's own writes, and its
// reads are validated from now. The snapshot it had would hide those
// writes, and its validation would fail on them at every retry. What Redis
// checks, that no watched key changed since the WATCH that named it (the
// connection's own writes to it included), becomes a transaction per WATCH
// version that reads nothing and validates its keys; the rebased
// transaction validates them too, from now, so the two cover each WATCH to
// the commit. Reads made after WATCH and before the write are no longer
// validated: Redis does not check them either.
func (s *session) rebase() error {
	if _, ok := s.txs.eng.(*memkv.Store); !ok || !s.txs.wrote {
		return nil // Redis shards read live at EXEC
	}
	tx, err := txn.Begin(s.txs.eng, txOptions)
	if err != nil {
		return err
	}
	var checks []*txn.Tx
	fail := func(err error) error {
		tx.Rollback()
		for _, c := range checks {
			c.Rollback()
		}
		return err
	}
	byVersion := map[uint64]*txn.Tx{}
	for key, version := range s.txs.watched {
		c := byVersion[version]
		if c == nil {
			if c, err = txn.Begin(atVersion{s.txs.eng, version}, txOptions); err != nil {
				return fail(err)
			}
			byVersion[version] = c
			checks = append(checks, c)
		}
		if err := errors.Join(c.AddReadConflictKey([]byte(key)), tx.AddReadConflictKey([]byte(key))); err != nil {
			return fail(err)
		}
	}
	s.txs.tx.Rollback()
	for _, c := range s.txs.checks { // a later WATCH's (advance): their reads are dropped too
		c.Rollback()
	}
	s.txs.tx, s.txs.checks = tx, checks
	return nil
}

// advance moves a memkv transaction to the store's current version at a
// later WATCH that names a key not yet watched, before the connection's own
// write (after it, reads are live and EXEC rebases). Redis checks a key
// from the WATCH that named it: from the first WATCH's snapshot, a write of
// the key made before it was watched aborted EXEC (at every retry while
// others kept writing it between the two WATCHes), and a read of it after
// this WATCH did not see that write. The transaction so far becomes a
// check, which EXEC commits first: it validates its reads and watched keys
// from its snapshot. The new one reads from now and validates them too,
// from now, so the two cover each of them to the commit, as rebase's do;
// the new keys are validated from now, this WATCH's version. An expired
// new key is deleted first, as at the first WATCH (expireWatched).
func (s *session) advance(ctx context.Context, keys []string) error {
	if _, ok := s.txs.eng.(*memkv.Store); !ok || s.txs.wrote {
		return nil
	}
	var added []string
	for _, k := range keys {
		if _, ok := s.txs.watched[k]; !ok {
			added = append(added, k)
		}
	}
	if len(added) == 0 {
		return nil // each key is validated from its WATCH already
	}
	s.expireWatched(ctx, added)
	tx, err := txn.Begin(s.txs.eng, txOptions)
	if err != nil {
		return err
	}
	req := s.txs.tx.Request() // the reads so far, watched keys included
	for _, k := range req.ReadKeys {
		if err = tx.AddReadConflictKey(k); err != nil {
			break
		}
	}
	for i := 0; err == nil && i+1 < len(req.ReadRanges); i += 2 {
		err = tx.AddReadConflictRange(req.ReadRanges[i], req.ReadRanges[i+1])
	}
	if err != nil {
		tx.Rollback()
		return err
	}
	s.txs.checks = append(s.txs.checks, s.txs.tx)
	s.txs.tx = tx
	return nil
}

// stateObserver is an engine that validates by key state rather than by
// version (redisTxEngine): WATCH must record the watched keys' states when it
// runs, since no version says what they were then.
type stateObserver interface {
	observe(ctx context.Context, keys []string) error
	// unchecked returns a key the transaction read if its reads, a round
	// trip each, may have seen more than one state of the shard (it read
	// two keys, or one key twice), else nil.
	unchecked() []byte
	// forgetReads drops the states of the keys read but not watched: the
	// connection writes outside MULTI since WATCH (ownWrite).
	forgetReads(watched map[string]uint64)
}

// ownWrite notes that the connection writes outside MULTI since WATCH. As
// the memkv path's rebase, and as Redis, EXEC then checks the watched keys
// from their WATCH, the connection's own writes included, but no longer
// the reads made before: on a Redis shard their states are dropped (a read
// of the key written, then the same key inside MULTI, saw two states, and
// EXEC answered null at every retry), and a later WATCH or read notes the
// state from then.
func (s *session) ownWrite() {
	s.txs.wrote = true
	if o, ok := s.txs.eng.(stateObserver); ok {
		o.forgetReads(s.txs.watched)
	}
}

// callTx serves a read after WATCH from the transaction's snapshot: it is
// consistent with the version EXEC validates against (a shared fetch could
// be older), and it joins the read set. It is admitted as the same read
// outside a transaction (quota, shed, the limiter; cost its keys, at least
// 1): it skipped admission, and a tenant looping WATCH, GET, UNWATCH got
// past load shedding. Nothing else is held while it waits in shed's queue
// (the transaction pins no connection nor version). It is charged the
// backend calls it makes (chargeTx). It counts in the metrics and errors as
// other commands do. It reports false, having answered nothing, once the
// snapshot has left the shard's history window (txTooOld): the read then
// runs as outside a transaction, as Redis's reads after WATCH do, and EXEC
// answers null. So it does once the transaction has read max_args keys:
// each is held until EXEC (on Redis shards its state, which the commit
// checks), and a connection's reads after WATCH are bounded as the keys it
// watches are; the later ones are not validated at EXEC, as Redis validates
// none.
func (ss *session) callTx(ctx context.Context, spec *cmdSpec, args [][]byte) (any, bool) {
	n := spec.nkeys(len(args))
	if ss.txTooOld() || ss.txs.reads+n > ss.g.cfg.Limits.MaxArgs {
		return nil, false
	}
	g, t := ss.g, ss.tenant
	now := time.Now()
	done, release, err := g.admitAt(ctx, t, int64(max(n, 1)), now)
	if err != nil {
		g.n.errors.Add(1)
		g.metrics.observe(t, spec, false, time.Since(now))
		return errReply(err), true
	}
	// Given back on every path, as call's: before the read runs outside the
	// transaction too (txTooOld), which is admitted again. A panic of the
	// read (a bug: serveConn closes the connection) counts as a request
	// that failed, as call counts one: it was counted nowhere but in
	// connection_panics.
	failed, returned := true, false
	defer func() {
		done(!failed)
		release()
		if !returned {
			g.n.errors.Add(1)
			g.metrics.observe(t, spec, false, time.Since(now))
		}
	}()
	ss.txs.reads += n
	tctx, cancel := context.WithTimeout(ctx, time.Duration(g.timeout.Load()))
	defer cancel()
	from := ss.txMark()
	r := ss.txCommand(tctx, args, now)
	returned = true
	if ss.txTooOld() { // the store's GC passed the snapshot during the read
		return nil, false
	}
	ss.chargeTx(now, from, n)
	_, failed = r.(respErr)
	if failed {
		g.n.errors.Add(1)
	}
	g.metrics.observe(t, spec, !failed, time.Since(now))
	return r, true
}

// txTooOld reports whether the transaction's snapshot has left its memkv
// shard's history window: its reads fail with ErrTooOld, which ends it
// (later operations fail with ErrDone), and it cannot commit. Redis shards
// keep no versions: never there.
func (s *session) txTooOld() bool {
	st, ok := s.txs.eng.(*memkv.Store)
	return ok && s.txs.tx.ReadVersion() < st.Horizon()
}

// txMark is how far the transaction's engine has gone: its round trips to
// its shard and the ops (keys) they carried on Redis, or -1 for memkv's,
// which reads the store in process.
type txMark struct{ calls, ops int }

func (ss *session) txMark() txMark {
	if e, ok := ss.txs.eng.(*redisTxEngine); ok {
		return txMark{e.calls, e.ops}
	}
	return txMark{-1, -1}
}

// chargeTx charges the tenant for the backend calls the transaction made
// since from (a txMark), and counts them and their ops: its round trips on
// Redis (a read of n keys is n, each of one op; the commit one, an op per
// key it checks or writes), one on memkv, carrying keys ops (the keys of the
// commands it ran), and none there for commands without keys (PING inside
// MULTI): they read and write nothing, and the commit does not call the
// store.
func (ss *session) chargeTx(now time.Time, from txMark, keys int) {
	n, ops := min(keys, 1), keys
	if from.calls >= 0 {
		cur := ss.txMark()
		n, ops = cur.calls-from.calls, cur.ops-from.ops
	}
	if n <= 0 {
		return
	}
	ss.g.n.backendCalls.Add(uint64(n))
	ss.g.n.backendOps.Add(uint64(ops))
	ss.tenant.backendCalls.Add(uint64(n))
	ss.tenant.quota.charge(now, float64(n))
}

func cmdWatch(ctx context.Context, s *session, a [][]byte) any {
	if s.txs.multi {
		return respErr("ERR WATCH inside MULTI is not allowed")
	}
	keys := make([]string, 0, len(a)-1)
	for _, k := range a[1:] {
		keys = append(keys, string(k))
	}
	if s.tenant == nil {
		return respErr("NOAUTH Authentication required.")
	}
	if !s.tenant.allows("WATCH", keys) {
		s.tenant.denied.Add(1) // as lookup counts the other commands' denials
		s.g.n.denied.Add(1)
		return respErr(errNoPerm.Error())
	}
	// The keys watched are bounded as one WATCH's are (max_args): each
	// is held, and checked at EXEC, until the transaction ends.
	if limit := s.g.cfg.Limits.MaxArgs; len(s.txs.watched)+len(keys) > limit {
		added := map[string]bool{}
		for _, k := range keys {
			if _, ok := s.txs.watched[k]; !ok {
				added[k] = true
			}
		}
		if len(s.txs.watched)+len(added) > limit {
			return respErr(fmt.Sprintf("ERR too many watched keys (limit %d)", limit))
		}
	}
	// A refused WATCH leaves the connection as it was: without a
	// transaction if it had none (reads would come from it, and it would
	// bind the connection to the shard of the first key).
	fresh := s.txs.tx == nil
	refuse := func(r any) any {
		if fresh {
			s.resetTx()
		}
		return r
	}
	if fresh {
		s.expireWatched(ctx, keys)
	}
	if err := s.bindShard(keys); err != nil {
		return refuse(errReply(err))
	}
	if !fresh {
		if err := s.advance(ctx, keys); err != nil {
			return errReply(err)
		}
	}
	if o, ok := s.txs.eng.(stateObserver); ok { // Redis: note the keys' states now, to compare at EXEC
		// Admitted as a read of its keys (a round trip each), as callTx's
		// reads are: checked by the quota alone, a loop of WATCHes of
		// max_args keys got past load shedding.
		now := time.Now()
		done, release, err := s.g.admitAt(ctx, s.tenant, int64(len(keys)), now)
		if err != nil {
			return refuse(errReply(err))
		}
		from := s.txMark()
		err = func() (err error) {
			defer func() { done(err == nil); release() }() // a panic's too
			return o.observe(ctx, keys)                    // a round trip per key not yet seen
		}()
		s.chargeTx(now, from, len(keys))
		if err != nil {
			return refuse(errReply(err))
		}
	}
	for _, k := range keys {
		if err := s.txs.tx.AddReadConflictKey([]byte(k)); err != nil {
			if errors.Is(err, txn.ErrDone) {
				break // too old (txTooOld): EXEC answers null whatever is watched
			}
			return refuse(errReply(err))
		}
	}
	// Each key is checked from the WATCH that named it first (rebase): the
	// first WATCH's is the transaction's own version, as is a later one's
	// that moved it on (advance); after the connection's own write, the
	// store's now, after any write the connection made before it.
	v := s.txs.tx.ReadVersion()
	if !fresh && s.txs.wrote {
		v = s.txs.eng.ReadVersion()
	}
	if s.txs.watched == nil {
		s.txs.watched = make(map[string]uint64, len(keys))
	}
	for _, k := range keys {
		if _, ok := s.txs.watched[k]; !ok {
			s.txs.watched[k] = v
		}
	}
	return simple("OK")
}

// expireWatched deletes those of keys whose TTL ran out, on memkv, before
// WATCH begins the transaction: as Redis 7, EXEC must not abort when a key
// that had already expired at WATCH is deleted after it (absent then,
// absent now), and on memkv that deletion (the expiry sweep's) is a
// version of the key, which the transaction validates. The first WATCH's
// keys, and the new keys of a later one that moves the transaction on
// (advance): each is validated from a version after the deletion. Redis
// shards delete expired keys as they read them.
func (s *session) expireWatched(ctx context.Context, keys []string) {
	b, ok := asMemkv(s.g.backend)
	if !ok {
		return
	}
	now := b.now()
	for _, k := range keys {
		b.expire(ctx, b.stores[s.g.shard(k)], []byte(k), now)
	}
}

func cmdUnwatch(_ context.Context, s *session, _ [][]byte) any {
	if !s.txs.multi {
		s.resetTx()
	}
	return simple("OK")
}

func cmdMulti(_ context.Context, s *session, _ [][]byte) any {
	if s.txs.multi {
		return respErr("ERR MULTI calls can not be nested")
	}
	s.txs.multi = true
	return simple("OK")
}

func cmdDiscard(_ context.Context, s *session, _ [][]byte) any {
	if !s.txs.multi {
		return respErr("ERR DISCARD without MULTI")
	}
	s.resetTx()
	return simple("OK")
}

// queue answers a command sent between MULTI and EXEC.
func (s *session) queue(cmd redcon.Command, spec *cmdSpec, bad any) any {
	if bad != nil {
		s.txs.aborted = true
		return bad
	}
	// Redis queues UNWATCH. A range read cannot run in a transaction
	// (txCommand): refused now, it fails the transaction, rather than
	// failing alone at EXEC while the others are applied.
	if spec.kind == kindConn && spec.name != "UNWATCH" || spec.name == "KVSCAN" {
		s.txs.aborted = true
		return respErr("ERR command not allowed inside a transaction")
	}
	if limit := s.g.cfg.Limits.MaxTxCommands; len(s.txs.queued) >= limit {
		// A bound on what one connection can make the gateway hold.
		s.txs.aborted = true
		return respErr(fmt.Sprintf("ERR transaction too long (limit %d queued commands)", limit))
	}
	s.txs.queued = append(s.txs.queued, redcon.Command{Args: cloneArgs(cmd.Args)})
	if spec.kind == kindRead || spec.kind == kindWrite {
		s.txs.data++
		s.txs.cost += max(spec.nkeys(len(cmd.Args)), 1)
	}
	return simple("QUEUED")
}

func cloneArgs(args [][]byte) [][]byte {
	out := make([][]byte, len(args))
	for i, a := range args {
		out[i] = append([]byte{}, a...) // not nil when empty: a nil []byte reply is null
	}
	return out
}

// execAttempts bounds the runs of a transaction without WATCH whose commit
// conflicts (cmdExec).
const execAttempts = 16

// cmdExec runs the queued commands in the transaction and commits it. A
// conflict with a write committed since the transaction's reads (a WATCHed
// key, or any key the transaction read) answers a null array, as Redis does
// when a WATCHed key changed: the client retries. A transaction without
// WATCH (nothing read before EXEC) is run again instead, up to
// execAttempts times in all, from the shard's state then: Redis never
// answers null to it, and its client saw nothing of the state it ran on.
func cmdExec(ctx context.Context, s *session, _ [][]byte) any {
	if !s.txs.multi {
		return respErr("ERR EXEC without MULTI")
	}
	defer s.resetTx()
	if s.txs.aborted {
		return respErr("EXECABORT Transaction discarded because of previous errors.")
	}
	if s.tenant == nil {
		return respErr("NOAUTH Authentication required.")
	}
	start := time.Now()
	retry := s.txs.tx == nil // no WATCH, no read after it
	if err := s.bindQueued(); err != nil {
		// Refused before it ran (CROSSSLOT), as at admission below: its
		// commands are answered by EXEC's error and count as failed.
		s.observeQueued(nil, false, start)
		return errReply(err)
	}
	// Admitted at the cost of its commands' keys, as a pipelined run (an
	// MSET of 1,000 keys costs 1,000 in MULTI as outside it). Refused, its
	// data commands count as shed, throttled or overloaded, as they count in
	// the requests and errors (observeQueued) and as a refused run's do; one
	// without data commands counts as one refused command (its EXEC), as the
	// server counts its OVERLOADED.
	// A transaction that calls no backend (no data command, and no key read
	// or watched that a Redis commit checks) runs as its commands (PING,
	// ECHO, INFO) run outside MULTI, without admission: it has no backend
	// call to charge, and a tenant over its quota got THROTTLED for MULTI,
	// PING, EXEC, counted nowhere, while a PING alone was answered.
	done, release := func(bool) {}, func() {}
	if _, checked := s.txs.eng.(stateObserver); s.txs.data > 0 || (!retry && checked) {
		var err error
		done, release, err = s.g.admitRun(ctx, s.tenant, int64(max(1, s.txs.cost)), max(1, s.txs.data), time.Now())
		if err != nil {
			if (err == errOverloaded || err == errMemory) && s.txs.data > 1 {
				// Refused by the limiter, they count as overloaded too: the
				// server counts EXEC's reply once, the others here.
				s.g.n.overloaded.Add(uint64(s.txs.data - 1))
			}
			s.observeQueued(nil, false, start)
			return errReply(err)
		}
	}
	// Released on every path, a panic's too (a bug: serveConn closes the
	// connection): kept, each one shrank the capacity for good. A panic
	// counts the queued commands as failed, as a data command's panic
	// counts it outside MULTI: they were counted nowhere.
	committed, returned := false, false
	defer func() {
		done(committed)
		release()
		if !returned {
			s.observeQueued(nil, false, start)
		}
	}()
	if err := s.rebase(); err != nil {
		returned = true
		s.observeQueued(nil, false, start)
		return errReply(err)
	}
	out, err := s.runQueued(ctx)
	var ce *txn.ConflictError
	for attempt := 1; retry && attempt < execAttempts && (errors.As(err, &ce) || errors.Is(err, txn.ErrTooOld)); attempt++ {
		s.txs.tx.Rollback()
		s.txs.tx = nil
		if err = s.bindQueued(); err != nil { // a new transaction (on Redis, engine) on the same shard
			break
		}
		out, err = s.runQueued(ctx)
	}
	committed, returned = err == nil, true
	s.observeQueued(out, err == nil, start)
	if err == nil || errors.Is(err, txn.ErrCommitUnknown) {
		// Reads that start after EXEC returns must not join a fetch that
		// started before the commit. A commit of unknown outcome (the
		// reply was lost) may have been applied: its keys are dropped too,
		// so no read serves a value it may have replaced.
		for _, c := range s.txs.queued {
			if spec := commands[strings.ToUpper(string(c.Args[0]))]; spec.kind == kindWrite {
				for _, k := range spec.keys(c.Args) {
					s.g.flights.Forget(k)
					if s.g.cache != nil {
						s.g.cache.invalidate(s.txs.shard, k)
					}
				}
			}
		}
	}
	switch {
	case errors.As(err, &ce), errors.Is(err, txn.ErrTooOld), errors.Is(err, txn.ErrDone):
		// ErrDone: a read found the snapshot past the shard's history
		// window (txTooOld), which ended the transaction before its commit.
		return nullArray{}
	case err != nil:
		return errReply(err)
	}
	return out
}

// runQueued runs the queued commands in the transaction and commits it,
// charging the tenant for the backend calls it made. It returns their
// replies and the commit's error.
func (s *session) runQueued(ctx context.Context) ([]any, error) {
	out := make([]any, len(s.txs.queued))
	now := time.Now()
	from := s.txMark()
	keys := 0
	for i, c := range s.txs.queued {
		out[i] = s.txCommand(ctx, c.Args, now)
		if spec, ok := lookupSpec(c.Args[0]); ok && spec.hasKeys() {
			keys += spec.nkeys(len(c.Args))
		}
	}
	err := s.checkReads()
	if err == nil {
		for _, c := range s.txs.checks { // the watched keys, each WATCH to now (rebase)
			if _, err = c.Commit(ctx); err != nil {
				break
			}
		}
	}
	if err == nil {
		_, err = s.txs.tx.Commit(ctx)
	}
	s.chargeTx(now, from, keys) // on Redis, each read inside is a round trip, as is the commit
	return out, err
}

// bindQueued binds the transaction to the shard of the queued commands'
// keys (that of the empty key if they have none). It returns errCrossShard
// if they map to more than one shard, errTxBackend on a backend without
// transactions.
func (s *session) bindQueued() error {
	for _, c := range s.txs.queued {
		spec := commands[strings.ToUpper(string(c.Args[0]))]
		if spec.hasKeys() {
			if err := s.bindShard(spec.keys(c.Args)); err != nil {
				return err
			}
		}
	}
	if s.txs.tx == nil { // no keys at all
		return s.bindShard([]string{""})
	}
	return nil
}

// checkReads makes the commit check the transaction's reads on an engine
// that validates by key state (Redis) when they may not be one state of the
// shard. txn commits a transaction without writes or WATCH without the
// engine, taking its reads for one snapshot; on Redis each read is a round
// trip of its own, and only the commit script's check makes them one state,
// as Redis's EXEC does. The key added is one the engine already checks.
func (s *session) checkReads() error {
	if o, ok := s.txs.eng.(stateObserver); ok {
		if k := o.unchecked(); k != nil {
			return s.txs.tx.AddReadConflictKey(k)
		}
	}
	return nil
}

// observeQueued counts the data commands of the transaction EXEC ran (or
// refused: CROSSSLOT, or at admission) as the same commands outside a transaction count:
// in total_commands_processed, the tenant's requests and the request metrics,
// each under its own name, with the latency of EXEC (admission to reply:
// they are answered with it). One whose reply in out is an error, and every
// one of a transaction that did not commit (committed false), is an error.
func (s *session) observeQueued(out []any, committed bool, start time.Time) {
	g, t := s.g, s.tenant
	took := time.Since(start)
	for i, c := range s.txs.queued {
		spec, ok := lookupSpec(c.Args[0])
		if !ok || (spec.kind != kindRead && spec.kind != kindWrite) {
			continue // UNWATCH, the one other command queued
		}
		failed := !committed
		if !failed {
			_, failed = out[i].(respErr)
		}
		g.n.commands.Add(1)
		t.requests.Add(1)
		if failed {
			g.n.errors.Add(1)
		}
		g.metrics.observe(t, spec, !failed, took)
	}
}

// txCommand runs one queued command against the transaction (reads see its
// own writes). A key of another type than string (Redis shards) is there
// for EXISTS, DEL and SET NX/XX, null for MGET, and WRONGTYPE for GET and
// INCR, as in Redis.
func (s *session) txCommand(ctx context.Context, a [][]byte, now time.Time) any {
	tx := s.txs.tx
	// get reads k: found with errWrongType for a key of another type.
	get := func(k []byte) ([]byte, bool, error) {
		raw, ok, err := tx.Get(ctx, k)
		if errors.Is(err, errWrongType) {
			return nil, true, err
		}
		if err != nil || !ok {
			return nil, false, err
		}
		v, live := decodeValue(raw, now)
		return v, live, nil
	}
	name := strings.ToUpper(string(a[0]))
	switch name {
	case "GET":
		v, ok, err := get(a[1])
		if err != nil {
			return errReply(err)
		}
		if !ok {
			return nullReply{}
		}
		return v
	case "MGET":
		out := make([]any, 0, len(a)-1)
		for _, k := range a[1:] {
			v, ok, err := get(k)
			if err != nil && !errors.Is(err, errWrongType) {
				return errReply(err)
			}
			if ok && err == nil {
				out = append(out, v)
			} else {
				out = append(out, nullReply{})
			}
		}
		return out
	case "EXISTS", "DEL", "UNLINK":
		var n int64
		for _, k := range a[1:] {
			_, ok, err := get(k)
			if err != nil && !errors.Is(err, errWrongType) {
				return errReply(err)
			}
			if ok {
				n++
				if name != "EXISTS" {
					// The delete of a key this transaction created nets out to
					// no write, which memkv does not version; Redis counts it
					// as touching the key, and aborts its watchers: the write
					// conflict says so.
					if err := errors.Join(tx.Delete(k), tx.AddWriteConflictKey(k)); err != nil {
						return errReply(err)
					}
				}
			}
		}
		return n
	case "SET":
		return s.txSet(ctx, a, now, get)
	case "UNWATCH":
		return simple("OK")
	case "MSET":
		if len(a)%2 != 1 {
			return errArity("mset")
		}
		for i := 1; i+1 < len(a); i += 2 {
			if err := tx.Put(a[i], encodeValue(a[i+1], 0)); err != nil {
				return errReply(err)
			}
		}
		return simple("OK")
	case "INCR", "DECR", "INCRBY", "DECRBY":
		return s.txIncr(ctx, name, a, now)
	}
	// Commands without keys (PING, ECHO, INFO...) are answered as outside.
	if spec := commands[name]; spec != nil && spec.kind == kindLocal {
		return spec.fn(ctx, s, a)
	}
	return respErr("ERR " + name + " is not supported inside a transaction")
}

// txIncr is INCR/INCRBY/DECR/DECRBY inside a transaction: like the plain
// path, it keeps the key's TTL and refuses an overflow.
func (s *session) txIncr(ctx context.Context, name string, a [][]byte, now time.Time) any {
	delta := int64(1)
	if len(a) == 3 {
		d, err := parseRedisInt(a[2])
		if err != nil {
			return respErr("ERR value is not an integer or out of range")
		}
		delta = d
	}
	if name[0] == 'D' {
		if delta == math.MinInt64 {
			return respErr("ERR decrement would overflow")
		}
		delta = -delta
	}
	raw, ok, err := s.txs.tx.Get(ctx, a[1])
	if err != nil {
		return errReply(err)
	}
	n, exp := int64(0), int64(0)
	if v, live := decodeValue(raw, now); ok && live {
		if n, err = parseRedisInt(v); err != nil {
			return errReply(errNotInteger)
		}
		exp = int64(binary.BigEndian.Uint64(raw[:8])) // INCR keeps the TTL
	}
	if (delta > 0 && n > math.MaxInt64-delta) || (delta < 0 && n < math.MinInt64-delta) {
		return respErr("ERR increment or decrement would overflow")
	}
	n += delta
	if err := s.txs.tx.Put(a[1], encodeValue(strconv.AppendInt(nil, n, 10), exp)); err != nil {
		return errReply(err)
	}
	return n
}

func (s *session) txSet(ctx context.Context, a [][]byte, now time.Time, get func([]byte) ([]byte, bool, error)) any {
	nx, xx, ttl, bad := setOptions(a)
	if bad != "" {
		return bad
	}
	if nx || xx {
		_, ok, err := get(a[1])
		if err != nil && !errors.Is(err, errWrongType) {
			return errReply(err)
		}
		if (nx && ok) || (xx && !ok) {
			return nullReply{}
		}
	}
	var exp int64
	if ttl > 0 {
		exp = now.Add(ttl).UnixNano()
	}
	if err := s.txs.tx.Put(a[1], encodeValue(a[2], exp)); err != nil {
		return errReply(err)
	}
	return simple("OK")
}
