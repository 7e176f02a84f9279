package main

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/tierkit/tierkit/txn"
)

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
	// Admitted at the cost of its commands' keys (admitExec).
	done, release, err := s.admitExec(ctx, retry)
	if err != nil {
		s.observeQueued(nil, false, start)
		return errReply(err)
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
	out, err := s.runQueued(ctx, true)
	var ce *txn.ConflictError
	for attempt := 1; retry && attempt < execAttempts && (errors.As(err, &ce) || errors.Is(err, txn.ErrTooOld)); attempt++ {
		s.txs.tx.Rollback()
		s.txs.tx = nil
		if err = s.bindQueued(); err != nil { // a new transaction (on Redis, engine) on the same shard
			break
		}
		out, err = s.runQueued(ctx, false)
	}
	committed, returned = err == nil, true
	s.observeQueued(out, err == nil, start)
	if err == nil || errors.Is(err, txn.ErrCommitUnknown) {
		// A commit of unknown outcome (the reply was lost) may have been
		// applied: its keys are dropped too, so no read serves a value it
		// may have replaced.
		s.forgetQueuedWrites()
	}
	if err == nil {
		s.oweSweep(ctx)
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

// admitExec admits an EXEC at the cost of its commands' keys, as a
// pipelined run (an MSET of 1,000 keys costs 1,000 in MULTI as outside it).
// Refused, its data commands count as shed, throttled or overloaded, as
// they count in the requests and errors (observeQueued) and as a refused
// run's do; one without data commands counts as one refused command (its
// EXEC), as the server counts its OVERLOADED.
// A transaction that calls no backend (no data command, and no WATCH:
// retry) runs as its commands (PING, ECHO, INFO) run outside MULTI,
// without admission: it has no backend call to charge, and a tenant over
// its quota got THROTTLED for MULTI, PING, EXEC, counted nowhere, while a
// PING alone was answered. One with watched keys is admitted: its commit
// checks them, on Redis shards with the commit script, on memkv through the
// store (which was neither admitted nor charged there).
func (s *session) admitExec(ctx context.Context, retry bool) (done func(bool), release func(), err error) {
	if s.txs.data <= 0 && retry {
		return func(bool) {}, func() {}, nil
	}
	// At the highest priority of its commands, as a pipelined run (admitRun);
	// with none, it is admitted for its watched keys' check, at WATCH's.
	prio := s.txs.prio
	if s.txs.data <= 0 {
		prio = int(s.tenant.prio[commands["WATCH"].idx])
	}
	done, release, err = s.g.admitRun(ctx, s.tenant, prio, int64(max(1, s.txs.cost)), max(1, s.txs.data), time.Now())
	if err != nil && (err == errOverloaded || err == errMemory) && s.txs.data > 1 {
		// Refused by the limiter, they count as overloaded too: the
		// server counts EXEC's reply once, the others here.
		s.g.n.overloaded.Add(uint64(s.txs.data - 1))
	}
	return done, release, err
}

// forgetQueuedWrites drops the keys of the transaction's writes from the
// coalescing group and the caching tier: reads that start after EXEC
// returns must not join a fetch that started before the commit.
func (s *session) forgetQueuedWrites() {
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

// oweSweep adds the keys a committed EXEC wrote on memkv to its shard's
// expiry sweep (memkvBackend.owe), as the same writes outside a transaction
// add theirs.
func (s *session) oweSweep(ctx context.Context) {
	b, ok := asMemkv(s.g.backend)
	if !ok {
		return
	}
	writes := 0
	for _, c := range s.txs.queued {
		if spec, ok := lookupSpec(c.Args[0]); ok && spec.kind == kindWrite {
			writes += spec.nkeys(len(c.Args))
		}
	}
	b.owe(ctx, s.txs.shard, writes, b.now())
}

// runQueued runs the queued commands in the transaction and commits it,
// charging the tenant for the backend calls it made. It returns their
// replies and the commit's error. first is false for a run again after a
// conflict (cmdExec's retries).
func (s *session) runQueued(ctx context.Context, first bool) ([]any, error) {
	if s.txs.touched != nil {
		// The connection wrote a watched key since its WATCH (noteOwnWrite):
		// as Redis, nothing runs.
		return nil, &txn.ConflictError{Keys: [][]byte{s.txs.touched}}
	}
	out := make([]any, len(s.txs.queued))
	now, at := time.Now(), s.g.expiryNow()
	if e, ok := s.txs.eng.(*redisTxEngine); ok {
		e.at = at // the SET EX of its commands are TTLs from then
	}
	from := s.txMark()
	keys := 0
	s.txs.readErr = nil
	for i, c := range s.txs.queued {
		s.txs.ran = i
		out[i] = s.txCommand(ctx, c.Args, at)
		if spec, ok := lookupSpec(c.Args[0]); ok && spec.hasKeys() {
			keys += spec.nkeys(len(c.Args))
		}
		if s.txs.readErr != nil {
			// On Redis shards each read is a round trip of its own: one
			// that failed answered its command alone, and the commit
			// applied the others' writes (half the transaction).
			break
		}
	}
	err := s.txs.readErr
	if err == nil {
		err = s.checkReads()
	}
	if err == nil {
		err = s.watchedExpired(ctx)
	}
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
	if keys == 0 {
		// No data command: on memkv the commit still calls the store to
		// check the watched keys, one call of an op per key checked.
		keys = len(s.txs.watched)
	}
	// On Redis, each read inside is a round trip, as is the commit. On
	// memkv an EXEC is one call (README), however many runs its conflicts
	// cost: a run again is the gateway's recovery, not work the tenant
	// asked for, as a batch read again from the primary is charged once.
	// Each run was charged a call, up to execAttempts for one EXEC.
	if first || from.calls >= 0 {
		s.chargeTx(now, from, keys)
	}
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

// watchedExpired returns a conflict naming a watched key that has expired
// since its WATCH, on memkv: Redis 7 answers EXEC with null then, whether
// or not the key was deleted yet (a key already expired at WATCH is not
// checked: Redis skips it, and WATCH deleted it here, expireWatched). On
// memkv an expiry is no version of the key until the expiry sweep or a
// write deletes it, so the commit's validation did not see it. A key
// present and expired now was live or absent at its WATCH, so it expired
// or was written since: either way Redis aborts. Redis shards check it in
// the commit script, which reads an expired key as absent.
func (s *session) watchedExpired(ctx context.Context) error {
	b, ok := asMemkv(s.g.backend)
	if !ok || len(s.txs.watched) == 0 {
		return nil
	}
	st := b.stores[s.txs.shard]
	now, rv := b.now(), st.ReadVersion()
	for k := range s.txs.watched {
		raw, found, err := st.Get(ctx, rv, []byte(k))
		if err != nil {
			return err
		}
		if found && expired(raw, now) {
			return &txn.ConflictError{Keys: [][]byte{[]byte(k)}}
		}
	}
	return nil
}

// observeQueued counts the commands of the transaction EXEC ran (or
// refused: CROSSSLOT, or at admission) as the same commands outside a
// transaction count: each in total_commands_processed if it committed (as
// Redis counts a queued command when EXEC runs it, not when EXEC answers
// null or an error), in /control's commands either way, and the data commands
// in the tenant's requests and the request metrics, each under its own name,
// with the latency of EXEC (admission to reply: they are answered with it).
// A data command whose reply in out is an error, and every one of a
// transaction that did not commit (committed false), is an error. The others
// (UNWATCH, and those without keys: PING, ECHO, INFO...) count in the
// command counts only, as outside MULTI. An EXEC without data commands
// but with keys watched, admitted as a backend call, counts as one
// request, under EXEC.
func (s *session) observeQueued(out []any, committed bool, start time.Time) {
	g, t := s.g, s.tenant
	took := time.Since(start)
	if committed {
		g.n.commands.Add(uint64(len(s.txs.queued)))
	} else {
		g.n.uncommitted.Add(uint64(len(s.txs.queued)))
	}
	for i, c := range s.txs.queued {
		spec, ok := lookupSpec(c.Args[0])
		if !ok || (spec.kind != kindRead && spec.kind != kindWrite) {
			continue
		}
		failed := !committed
		if !failed {
			_, failed = out[i].(respErr)
		}
		t.requests.Add(1)
		if failed {
			g.n.errors.Add(1)
		}
		g.metrics.observe(t, spec, !failed, took)
	}
	if s.txs.data <= 0 && len(s.txs.watched) > 0 {
		// Admitted and charged as a backend call, its commit's check of the
		// watched keys (admitExec), it counts as one, under EXEC: refused,
		// it counted in the throttled or shed counts alone.
		t.requests.Add(1)
		if !committed {
			g.n.errors.Add(1)
		}
		g.metrics.observe(t, commands["EXEC"], committed, took)
	}
}

// txCommand runs one queued command against the transaction (reads see its
// own writes), deciding expiry at now (Gateway.expiryNow). A key of another
// type than string (Redis shards) is there for EXISTS, DEL and SET NX/XX,
// null for MGET, and WRONGTYPE for GET and INCR, as in Redis.
func (s *session) txCommand(ctx context.Context, a [][]byte, now time.Time) any {
	tx := s.txs.tx
	// get reads k: found with errWrongType for a key of another type.
	get := func(k []byte) ([]byte, bool, error) {
		raw, ok, err := s.txGet(ctx, k)
		if errors.Is(err, errWrongType) {
			return nil, true, err
		}
		if err != nil || !ok {
			if err == nil {
				s.noteRead(k, false)
			}
			return nil, false, err
		}
		v, live := decodeValue(raw, now)
		s.noteRead(k, !live)
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
		return txMGet(a, get)
	case "EXISTS", "DEL", "UNLINK":
		return s.txExistsDel(name, a, get)
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

// txGet reads k through the transaction. An error other than
// errWrongType (a reply of the command that read) is the read's own
// failure, noted in readErr: EXEC then commits nothing. errWrongType is
// returned as itself, not as txn wraps a read's error: its reply is
// Redis's "-WRONGTYPE ...", not "-ERR txn: read failed: WRONGTYPE ...".
func (s *session) txGet(ctx context.Context, k []byte) ([]byte, bool, error) {
	raw, ok, err := s.txs.tx.Get(ctx, k)
	if errors.Is(err, errWrongType) {
		return raw, ok, errWrongType
	}
	if err != nil && s.txs.readErr == nil {
		s.txs.readErr = err
	}
	return raw, ok, err
}

// txMGet is MGET inside a transaction: a key of another type than string is
// null, as in Redis.
func txMGet(a [][]byte, get func([]byte) ([]byte, bool, error)) any {
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
}

// txExistsDel is EXISTS, DEL or UNLINK (name) inside a transaction: it counts
// the keys there, of any type, and DEL and UNLINK delete them.
func (s *session) txExistsDel(name string, a [][]byte, get func([]byte) ([]byte, bool, error)) any {
	tx := s.txs.tx
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
	raw, ok, err := s.txGet(ctx, a[1])
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
	if err := s.txs.tx.Put(a[1], encodeValue(a[2], expiryAt(now, ttl))); err != nil {
		return errReply(err)
	}
	return simple("OK")
}
