package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

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
//
// Without the connection's own write, the transaction moves on to the
// current version too (moveOn), its reads so far and watched keys still
// validated from their snapshot: the queued commands read the data as it
// is at EXEC, as Redis's do. From the WATCH's snapshot, a key they read
// that had expired by then and that the expiry sweep deleted before EXEC
// (absent then, absent now) failed the validation: EXEC answered null
// where Redis commits.
func (s *session) rebase() error {
	if _, ok := s.txs.eng.(*memkv.Store); !ok || len(s.txs.watched) == 0 {
		return nil // Redis shards read live at EXEC; without WATCH, EXEC began the transaction
	}
	if !s.txs.wrote {
		return s.moveOn()
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
	s.txs.carried, s.txs.carriedRanges = 0, 0 // a check made of tx would validate all of it: more, never less
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
// new key is deleted first, as at the first WATCH (expireWatched; one read
// since WATCH as expired, expireReads), after the connection's own write
// too: there the new keys are checked from the store's version after this
// WATCH (noteWatched), and the expiry sweep's later deletion of one aborted
// EXEC, where Redis 7 commits.
func (s *session) advance(ctx context.Context, keys []string) error {
	if _, ok := s.txs.eng.(*memkv.Store); !ok {
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
	// It reads the store: admitted, counted and charged as the first
	// WATCH is (admitWatch), before it changes anything.
	err := s.admitWatch(ctx, len(keys), len(added), func() error {
		if err := s.expireReads(ctx, added); err != nil {
			return err
		}
		s.expireWatched(ctx, added)
		return nil
	})
	if err != nil {
		return err
	}
	if s.txs.wrote {
		return nil // reads are live, and EXEC rebases
	}
	return s.moveOn()
}

// moveOn makes a memkv transaction so far a check, which EXEC commits
// first (it validates its reads and watched keys from its snapshot), and
// goes on in a new one at the store's current version that validates them
// too, from now: the two cover each of them up to the commit.
//
// The check validates only what the transaction read since it began: what
// it carried in from the one before it (txState.carried) the checks before
// it validate, each from its own snapshot up to EXEC's commit, which comes
// after this version. Kept whole, each check held a copy of every key read
// or watched before it: WATCHes of a new key each held memory, and EXEC
// validated keys, in the square of their count (256 WATCHes of a new 4 KiB
// key, 1 MiB sent, held 150 MB; TestWatchesOfNewKeysHoldLinearMemory).
func (s *session) moveOn() error {
	old := s.txs.tx
	tx, err := txn.Begin(s.txs.eng, txOptions)
	if err != nil {
		return err
	}
	req := old.Request() // the reads so far, watched keys included
	keys, ranges := len(req.ReadKeys), len(req.ReadRanges)
	if err = addReads(tx, req.ReadKeys, req.ReadRanges); err != nil {
		tx.Rollback()
		return err
	}
	check := old
	if s.txs.carried > 0 || s.txs.carriedRanges > 0 {
		// Its own reads only (req is the old transaction's: copied
		// before its Rollback).
		check, err = s.checkAt(old.ReadVersion(), req.ReadKeys[s.txs.carried:], req.ReadRanges[s.txs.carriedRanges:])
		if err != nil {
			tx.Rollback()
			return err
		}
		old.Rollback()
	}
	s.txs.checks = append(s.txs.checks, check)
	s.txs.tx, s.txs.carried, s.txs.carriedRanges = tx, keys, ranges
	return nil
}

// addReads adds point reads keys and range reads ranges (begin, end pairs)
// to tx's read set.
func addReads(tx *txn.Tx, keys, ranges [][]byte) error {
	for _, k := range keys {
		if err := tx.AddReadConflictKey(k); err != nil {
			return err
		}
	}
	for i := 0; i+1 < len(ranges); i += 2 {
		if err := tx.AddReadConflictRange(ranges[i], ranges[i+1]); err != nil {
			return err
		}
	}
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
	// presentAtWatch reports whether a watched key was present when its
	// state was noted (noteOwnWrite).
	presentAtWatch(key string) bool
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
// answers null; a read that met the window during its run is charged, and
// its run outside is charged again. So it does once the transaction has read max_args keys:
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
	done, release, err := g.admitAt(ctx, t, spec, int64(max(n, 1)), now)
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
	r := ss.txCommand(tctx, args, g.expiryNow())
	returned = true
	// Charged before anything else: a read that failed is charged, as a
	// failed batch or KVSCAN's failed scan is; one that met the snapshot too
	// old read the store too, and its run outside the transaction is
	// charged again.
	ss.chargeTx(now, from, n)
	if ss.txTooOld() { // the store's GC passed the snapshot during the read
		return nil, false
	}
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
// commands it ran, or at EXEC without data commands the watched keys its
// commit checks in the store), and none there for commands without keys
// and nothing watched (PING inside MULTI without WATCH): they read and
// write nothing, and the commit does not call the store.
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
	// A key named twice is watched once: read once on Redis shards, and
	// added once to the transaction's read set.
	keys := make([]string, 0, len(a)-1)
	named := make(map[string]bool, len(a)-1)
	for _, k := range a[1:] {
		if !named[string(k)] {
			named[string(k)] = true
			keys = append(keys, string(k))
		}
	}
	if r := s.watchRefused(keys); r != nil {
		return r
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
		if err := s.expireWatchedAdmitted(ctx, keys); err != nil {
			return refuse(errReply(err))
		}
	}
	if err := s.bindShard(keys); err != nil {
		return refuse(errReply(err))
	}
	if !fresh {
		if err := s.advance(ctx, keys); err != nil {
			return errReply(err)
		}
	}
	if err := s.observeWatched(ctx, keys); err != nil {
		return refuse(errReply(err))
	}
	for _, k := range keys {
		if _, ok := s.txs.watched[k]; ok {
			continue // in the read set since the WATCH that named it (moveOn keeps it)
		}
		if err := s.txs.tx.AddReadConflictKey([]byte(k)); err != nil {
			if errors.Is(err, txn.ErrDone) {
				break // too old (txTooOld): EXEC answers null whatever is watched
			}
			return refuse(errReply(err))
		}
	}
	s.noteWatched(keys, fresh)
	return simple("OK")
}

// watchRefused is the reply refusing a WATCH of keys before it touches the
// transaction (not logged in, inside MULTI, or past max_args keys watched),
// or nil. As in Redis, the ACL is checked before MULTI is, by lookup, before
// WATCH runs: a denied WATCH inside MULTI answers -NOPERM and fails the
// transaction, as a denied data command does there (lookup, queue), where
// an allowed one is refused alone and EXEC still runs the transaction.
func (s *session) watchRefused(keys []string) any {
	if s.tenant == nil {
		return respErr("NOAUTH Authentication required.")
	}
	if s.txs.multi {
		return respErr("ERR WATCH inside MULTI is not allowed")
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
	return nil
}

// noteWatched records the version each key newly watched is checked from:
// the WATCH that named it first (rebase). The first WATCH's is the
// transaction's own version, as is a later one's that moved it on
// (advance); after the connection's own write, the store's now, after any
// write the connection made before it.
func (s *session) noteWatched(keys []string, fresh bool) {
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
}

// expireWatched deletes those of keys whose TTL ran out, on memkv, before
// WATCH begins the transaction: as Redis 7, EXEC must not abort when a key
// that had already expired at WATCH is deleted after it (absent then,
// absent now), and on memkv that deletion (the expiry sweep's) is a
// version of the key, which the transaction validates. The first WATCH's
// keys, and the new keys of a later one (advance): each is validated from
// a version after the deletion. Redis
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

// noteRead notes whether the first read of k through the transaction after
// WATCH, on memkv, found a value whose TTL had run out (expireReads).
func (s *session) noteRead(k []byte, expired bool) {
	if _, ok := s.txs.eng.(*memkv.Store); !ok || s.txs.multi {
		return
	}
	if _, seen := s.txs.readExpired[string(k)]; seen {
		return
	}
	if s.txs.readExpired == nil {
		s.txs.readExpired = map[string]bool{}
	}
	s.txs.readExpired[string(k)] = expired
}

// expireReads deletes, on memkv before the connection's own write, those of
// keys (newly watched by a later WATCH) that the transaction read since
// WATCH and found expired, if they are unchanged since that read, and drops
// them from the reads its snapshots validate. Redis's read deleted such a
// key, and EXEC commits when it is unchanged since its WATCH; here
// expireWatched's deletion, a version after the read's snapshot, failed the
// validation of that read: EXEC answered null. The deletion validates the
// key from the snapshot of its first read up to it (a write by another
// client in between keeps the read, and EXEC answers null), and the
// transaction from this WATCH validates it from after it; a key live at
// its first read is kept too (its expiry since is a change the read saw).
func (s *session) expireReads(ctx context.Context, keys []string) error {
	b, ok := asMemkv(s.g.backend)
	if !ok || s.txs.wrote || !slices.ContainsFunc(keys, func(k string) bool { return s.txs.readExpired[k] }) {
		// None to delete: the maps of every check's reads below, built
		// for each WATCH of a new key once anything was read, took 10 s
		// of CPU for 256 WATCHes of a new 4 KiB key with a GET of every
		// second one.
		return nil
	}
	txs := append(append([]*txn.Tx{}, s.txs.checks...), s.txs.tx) // oldest first
	reads := make([]map[string]bool, len(txs))
	for i, tx := range txs {
		reads[i] = map[string]bool{}
		for _, k := range tx.Request().ReadKeys {
			reads[i][string(k)] = true
		}
	}
	st, now := b.stores[s.txs.shard], b.now()
	drop := map[string]bool{}
	for _, k := range keys {
		for i := 0; s.txs.readExpired[k] && i < len(txs); i++ {
			if reads[i][k] { // the snapshot of its first read
				drop[k] = expireFrom(ctx, st, txs[i].ReadVersion(), []byte(k), now)
				break
			}
		}
	}
	for i, tx := range txs {
		// In their order: the reads the last one carried in come first
		// (moveOn), and stay counted in carried.
		req := tx.Request()
		keep := make([][]byte, 0, len(req.ReadKeys))
		carried := 0
		for j, k := range req.ReadKeys {
			if drop[string(k)] {
				continue
			}
			keep = append(keep, k) // copied by checkAt, before tx's Rollback
			if j < s.txs.carried {
				carried++
			}
		}
		if len(keep) == len(req.ReadKeys) {
			continue
		}
		c, err := s.checkAt(tx.ReadVersion(), keep, req.ReadRanges)
		if err != nil {
			return err
		}
		tx.Rollback()
		txs[i] = c
		if i == len(txs)-1 {
			s.txs.carried = carried
		}
	}
	s.txs.checks, s.txs.tx = txs[:len(txs)-1], txs[len(txs)-1]
	return nil
}

// expireFrom deletes key if its value at version rv has expired by now and
// it is unchanged since rv, and reports whether it did.
func expireFrom(ctx context.Context, st *memkv.Store, rv uint64, key []byte, now time.Time) bool {
	raw, found, err := st.Get(ctx, rv, key)
	if err != nil || !found || !expired(raw, now) {
		return false
	}
	_, err = st.Commit(ctx, &memkv.CommitRequest{ReadVersion: rv, ReadKeys: [][]byte{key}, Sets: [][]byte{key, nil}})
	return err == nil
}

// checkAt is a transaction at version rv that validates keys and ranges
// (begin, end pairs), of which it keeps copies: a check that reads nothing.
func (s *session) checkAt(rv uint64, keys, ranges [][]byte) (*txn.Tx, error) {
	c, err := txn.Begin(atVersion{s.txs.eng, rv}, txOptions)
	if err != nil {
		return nil, err
	}
	if err := addReads(c, keys, ranges); err != nil {
		c.Rollback()
		return nil, err
	}
	return c, nil
}
