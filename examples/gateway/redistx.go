package main

import (
	"context"
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"net"
	"slices"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tierkit/tierkit/txn"
)

// redisTxEngine runs one transaction's reads and its commit on one Redis
// shard, for package txn. Redis keeps no versions, so the engine validates by
// state instead: it remembers the state (a digest of the value and the
// absolute expiry, or "absent") of every key the transaction read or watched,
// and the commit is one Lua script that checks each of those keys still has
// that state and only then applies the writes. The script runs atomically on
// the shard, so a transaction that commits saw exactly the state its keys
// have at the commit: it is serializable at that point, as if it had run
// there alone. A transaction without writes is checked too when it read more
// than one key (unchecked): its reads, a round trip each, are one state of
// the shard only once the script has checked them.
//
// Against Redis's own WATCH this differs in two ways: a key that has at
// EXEC the state it had when read does not abort the transaction, however
// another client brought it back to it (rewritten with the same value and
// expiry, deleted again after a SET, incremented and decremented by as
// much; Redis aborts on any touch; the connection's own writes of a watched
// key abort it, noteOwnWrite), and a key read twice with two
// different states does (reads are not a snapshot, so the transaction saw an
// inconsistent view). Like the memkv path it is also stricter: every key read
// inside the transaction is validated, not only the WATCHed ones.
//
// The engine uses the shard's shared, bounded connection pool: no connection
// is pinned to a transaction, so open transactions cost the shard nothing
// until EXEC. Reads go to the primary (a replica's state could be older than
// the one the commit checks, which would only cause conflicts).
type redisTxEngine struct {
	c    *redis.Client
	seen map[string]keyState
	// changed lists keys read twice with different states: the transaction
	// saw two states of one key, so it cannot commit.
	changed [][]byte
	// calls counts the engine's round trips to the shard (each read, the
	// commit): the backend calls the gateway charges for the transaction;
	// ops the keys they carried (one per read; the commit's checked and
	// written keys).
	calls, ops int
	// volatile, if not nil, is marked before a commit that gives a key an
	// expiry, until it is answered: the caching tier's fills of the shard
	// then fetch PTTL (opsGiveExpiry, expiryFlag).
	volatile *expiryFlag
	// now is the gateway's clock (expiryNow), which the transaction's
	// commands decide expiry by; at is its time when EXEC ran them. The
	// shard's clock may be apart from it: a value read is given its
	// expiry as the shard's TTL from now (kept, the expiry header Get
	// answered for each key), and a write's expiry goes to the shard as a
	// TTL from at, as SET EX's outside a transaction, unless it is the
	// key's own (INCR keeps it): then as the shard's PEXPIRETIME.
	now  func() time.Time
	at   time.Time
	kept map[string]int64
}

// keyState is a key's state as the commit script checks it.
type keyState struct {
	// digest is the hex SHA-1 of the value, "-" for an absent key, or "T"
	// and the hex SHA-1 of DUMP's serialization for a key of another type
	// than string.
	digest   string
	expireMs int64 // PEXPIRETIME: unix ms, -1 for none (-2 when absent)
}

var (
	_ txn.Engine    = (*redisTxEngine)(nil)
	_ stateObserver = (*redisTxEngine)(nil)
)

func newRedisTxEngine(c *redis.Client, now func() time.Time) *redisTxEngine {
	return &redisTxEngine{c: c, seen: make(map[string]keyState), now: now, kept: make(map[string]int64)}
}

// ReadVersion is 0: Redis has no versions; validation is by state.
func (e *redisTxEngine) ReadVersion() uint64 { return 0 }

// Get reads key's value and expiry in one MULTI/EXEC round trip (so the two
// belong together), records its state, and returns the value in the
// gateway's transaction encoding (8-byte expiry header, unix ns of the
// gateway's clock: its TTL on the shard from now).
func (e *redisTxEngine) Get(ctx context.Context, _ uint64, key []byte) ([]byte, bool, error) {
	v, st, ttl, err := e.read(ctx, string(key))
	if err != nil {
		return nil, false, err
	}
	e.record(key, st)
	switch st.digest[0] {
	case '-':
		return nil, false, nil
	case 'T':
		return nil, false, errWrongType
	}
	var exp int64
	switch now := e.now().UnixNano(); {
	case st.expireMs > math.MaxInt64/1_000_000 || ttl > (math.MaxInt64-now)/1_000_000:
		exp = farExpiry
	case st.expireMs > 0:
		// The shard's TTL from the gateway's now: its clock may be apart.
		exp = now + max(ttl, 1)*1e6
		e.kept[string(key)] = exp
	}
	return encodeValue(v, exp), true, nil
}

// farExpiry is the expiry header of a value read from the shard with an
// expiry past what unix nanoseconds hold (year 2262; EXPIRE accepts more):
// live, and written back by Commit with the key's own expiry (INCR keeps
// it). No expiry the gateway sets reaches it (expiryAt: maxExpiry).
const farExpiry = math.MaxInt64

// observe records the current state of keys without returning values: WATCH
// on Redis shards, so EXEC can tell whether they changed since. It records
// all of them or, when a read fails, none: a WATCH answered with an error
// watches nothing, and EXEC must not validate the keys read before the
// failure.
func (e *redisTxEngine) observe(ctx context.Context, keys []string) error {
	type observed struct {
		key string
		st  keyState
	}
	var got []observed
	for _, k := range keys {
		if _, ok := e.seen[k]; ok {
			continue
		}
		_, st, _, err := e.read(ctx, k)
		if err != nil {
			return err
		}
		got = append(got, observed{k, st})
	}
	for _, o := range got {
		e.record([]byte(o.key), o.st)
	}
	return nil
}

// errWrongType is the read of a key of another type than string (whose
// state the engine records all the same): GET and INCR answer it, as Redis
// does; EXISTS, DEL and SET NX/XX count the key as there, MGET as null.
var errWrongType = errors.New("WRONGTYPE Operation against a key holding the wrong kind of value")

// read returns key's value, state and PTTL (ms). A key of another type than
// string (which the gateway serves no command of, but WATCH, EXISTS and DEL
// take) has no value; its state is its DUMP's digest, read in a second round
// trip.
func (e *redisTxEngine) read(ctx context.Context, key string) ([]byte, keyState, int64, error) {
	get, exp, ttl, err := e.readWith(ctx, key, redis.Pipeliner.Get)
	if ge := get.Err(); err != nil && ge != nil && isWrongType(ge) {
		v, st, err := e.readOther(ctx, key)
		return v, st, 0, err
	}
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, keyState{}, 0, err
	}
	if errors.Is(get.Err(), redis.Nil) {
		return nil, keyState{digest: "-", expireMs: -2}, 0, nil
	}
	v, err := get.Bytes()
	if err != nil {
		return nil, keyState{}, 0, err
	}
	ms, err := exp.Int64()
	if err != nil {
		return nil, keyState{}, 0, err
	}
	return v, keyState{digest: digest(v), expireMs: ms}, ttl.Val(), nil
}

// readOther returns the state of key, read as a key of another type than
// string; absent if it was deleted since (it can only have changed).
func (e *redisTxEngine) readOther(ctx context.Context, key string) ([]byte, keyState, error) {
	dump, exp, _, err := e.readWith(ctx, key, redis.Pipeliner.Dump)
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, keyState{}, err
	}
	if errors.Is(dump.Err(), redis.Nil) {
		return nil, keyState{digest: "-", expireMs: -2}, nil
	}
	ms, err := exp.Int64()
	if err != nil {
		return nil, keyState{}, err
	}
	return nil, keyState{digest: "T" + digest([]byte(dump.Val())), expireMs: ms}, nil
}

// readWith reads key with cmd (GET, or DUMP for a key of another type),
// its PEXPIRETIME and its PTTL (in ms, as Redis answers it) in one MULTI
// round trip, and counts the call.
func (e *redisTxEngine) readWith(ctx context.Context, key string,
	cmd func(redis.Pipeliner, context.Context, string) *redis.StringCmd) (*redis.StringCmd, *redis.Cmd, *redis.IntCmd, error) {
	var val *redis.StringCmd
	var exp *redis.Cmd
	ttl := redis.NewIntCmd(ctx, "PTTL", key)
	e.calls++
	e.ops++
	_, err := e.c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		val = cmd(p, ctx, key)
		exp = p.Do(ctx, "PEXPIRETIME", key)
		return p.Process(ctx, ttl)
	})
	return val, exp, ttl, err
}

// unchecked returns a key the transaction read when it read more than one
// key, or one key twice, else nil: reads that may not be one state of the
// shard until the commit script checks them.
func (e *redisTxEngine) unchecked() []byte {
	if len(e.seen) < 2 && len(e.changed) == 0 {
		return nil
	}
	for k := range e.seen {
		return []byte(k)
	}
	return nil
}

// forgetReads drops the states of the keys read but not in watched, and
// the keys read twice among them: reads before the connection's own write
// are not checked (stateObserver).
func (e *redisTxEngine) forgetReads(watched map[string]uint64) {
	kept := func(k string) bool {
		_, ok := watched[k]
		return ok
	}
	for k := range e.seen {
		if !kept(k) {
			delete(e.seen, k)
		}
	}
	e.changed = slices.DeleteFunc(e.changed, func(k []byte) bool { return !kept(string(k)) })
}

// presentAtWatch reports whether key was present when the transaction
// noted its state (stateObserver).
func (e *redisTxEngine) presentAtWatch(key string) bool {
	st, ok := e.seen[key]
	return ok && st.digest != "-"
}

func (e *redisTxEngine) record(key []byte, st keyState) {
	if old, ok := e.seen[string(key)]; ok {
		if old != st {
			e.changed = append(e.changed, append([]byte(nil), key...))
		}
		return
	}
	e.seen[string(key)] = st
}

func digest(v []byte) string {
	h := sha1.Sum(v)
	return hex.EncodeToString(h[:])
}

// Scan is not available: Redis keeps no key order to scan or validate.
func (e *redisTxEngine) Scan(context.Context, uint64, []byte, []byte, int, bool, [][]byte) ([][]byte, error) {
	return nil, errRedisRange
}

var errRedisRange = errors.New("ERR range reads need the memkv backend (Redis keeps no key order)")

// commitScript checks the state of the read keys (KEYS[1..nr]) and, if none
// changed, applies the writes (KEYS[nr+1..]). ARGV[1] is nr; then two
// arguments per read key (digest or "-", PEXPIRETIME); then two per write:
// the value and its expiry ("0": none; "a" and a PXAT in unix ms, the key's
// own; else a PX in ms, a TTL from now by the shard's clock), or "D" and ""
// to delete.
// A key of another type than string is checked by the digest of its DUMP
// ("T" and the digest). SET and DEL cannot fail on a key of any type.
var commitScript = redis.NewScript(`
local nr = tonumber(ARGV[1])
local bad = {}
for i = 1, nr do
  local k = KEYS[i]
  local want, wexp = ARGV[2*i], tonumber(ARGV[2*i+1])
  local v = redis.pcall('GET', k)
  local ok
  if type(v) == 'table' then -- WRONGTYPE: a key of another type
    ok = (want == 'T' .. redis.sha1hex(redis.call('DUMP', k))) and (redis.call('PEXPIRETIME', k) == wexp)
  elseif v == false then
    ok = (want == '-')
  else
    ok = (want == redis.sha1hex(v)) and (redis.call('PEXPIRETIME', k) == wexp)
  end
  if not ok then bad[#bad+1] = k end
end
if #bad > 0 then return bad end
local base = 2*nr + 1
for j = nr+1, #KEYS do
  local v, px = ARGV[base + 2*(j-nr) - 1], ARGV[base + 2*(j-nr)]
  if px == '' then
    redis.call('DEL', KEYS[j])
  elseif px == '0' then
    redis.call('SET', KEYS[j], v)
  elseif string.sub(px, 1, 1) == 'a' then
    redis.call('SET', KEYS[j], v, 'PXAT', string.sub(px, 2))
  else
    redis.call('SET', KEYS[j], v, 'PX', px)
  end
end
return 'OK'
`)

// Commit validates every key the transaction read or watched and applies its
// writes, atomically, in one script call. A transaction that neither read nor
// wrote anything costs no round trip.
func (e *redisTxEngine) Commit(ctx context.Context, req *txn.CommitRequest) (uint64, error) {
	if len(e.changed) > 0 {
		return 0, &redisConflict{keys: e.changed}
	}
	if len(req.Clears) > 0 {
		return 0, errRedisRange
	}
	if len(e.seen) == 0 && len(req.Sets) == 0 {
		return 0, nil
	}
	nr := len(e.seen)
	gives := false // a key gets an expiry
	keys := make([]string, 0, nr+len(req.Sets)/2)
	args := make([]any, 1, 1+2*nr+len(req.Sets))
	args[0] = nr
	for k, st := range e.seen {
		keys = append(keys, k)
		args = append(args, st.digest, st.expireMs)
	}
	for i := 0; i+1 < len(req.Sets); i += 2 {
		keys = append(keys, string(req.Sets[i]))
		v := req.Sets[i+1]
		if v == nil {
			args = append(args, "D", "")
			continue
		}
		if len(v) < 8 {
			return 0, fmt.Errorf("ERR transaction value of %q lacks its expiry header", req.Sets[i])
		}
		px := "0"
		switch exp, k := int64(binary.BigEndian.Uint64(v)), keys[len(keys)-1]; {
		case exp == farExpiry || (exp > 0 && exp == e.kept[k]):
			px = "a" + strconv.FormatInt(e.seen[k].expireMs, 10) // the transaction read it (INCR)
		case exp > 0:
			at := e.at
			if at.IsZero() {
				at = e.now()
			}
			// Round up: never expire before the client asked.
			px = strconv.FormatInt(max((exp-at.UnixNano()+999_999)/1e6, 1), 10)
		}
		gives = gives || px != "0"
		args = append(args, v[8:], px)
	}
	if gives && e.volatile != nil {
		defer e.volatile.writing()()
	}
	e.calls++
	e.ops += len(keys)
	res, err := commitScript.Run(ctx, e.c, keys, args...).Result()
	if err != nil {
		return 0, commitError(err)
	}
	if bad, ok := res.([]any); ok {
		c := &redisConflict{}
		for _, k := range bad {
			s, _ := k.(string)
			c.keys = append(c.keys, []byte(s))
		}
		return 0, c
	}
	return 0, nil
}

// commitError classifies a failed script call for txn: a reply error (the
// script refused, nothing applied) as is; an error before anything was sent
// (no connection) as transient; anything else as of unknown outcome.
func commitError(err error) error {
	if isReplyError(err) {
		return err
	}
	var op *net.OpError
	if errors.Is(err, redis.ErrPoolTimeout) || (errors.As(err, &op) && op.Op == "dial") {
		return &redisCommitErr{err: err, transient: true}
	}
	return &redisCommitErr{err: err}
}

// redisConflict: keys the transaction read changed before its commit.
type redisConflict struct{ keys [][]byte }

func (c *redisConflict) Error() string {
	return fmt.Sprintf("conflict: %d key(s) changed since the transaction read them", len(c.keys))
}
func (c *redisConflict) ConflictKeys() [][]byte   { return c.keys }
func (c *redisConflict) ConflictRanges() [][]byte { return nil }

// redisCommitErr is a commit that failed on the way to or from the shard.
type redisCommitErr struct {
	err       error
	transient bool
}

func (e *redisCommitErr) Error() string       { return "redis shard: " + e.err.Error() }
func (e *redisCommitErr) Unwrap() error       { return e.err }
func (e *redisCommitErr) Temporary() bool     { return e.transient }
func (e *redisCommitErr) CommitUnknown() bool { return !e.transient }
