package main

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tierkit/tierkit/memkv"
)

// opKind is the kind of one backend operation.
type opKind uint8

const (
	opGet opKind = iota + 1
	opSet
	opDel
	opExists
	opIncr
)

// op is one single-key backend operation. The gateway splits multi-key client
// commands (MGET, MSET, DEL k1 k2, ...) into ops per key, routes each to its
// shard, and the batcher groups the ops of one tenant and shard into one
// backend call.
type op struct {
	kind  opKind
	key   string
	value []byte        // opSet
	ttl   time.Duration // opSet: 0 means no expiry
	nx    bool          // opSet: only if absent
	xx    bool          // opSet: only if present
	delta int64         // opIncr
	// joint marks an op that is applied together with the op before it, as
	// one: the second and later keys of a multi-key write (MSET, DEL) on
	// one shard, which Redis applies atomically. memkv commits such a run in
	// one commit; the Redis backends send it as one MSET or DEL (jointEnd).
	joint bool
	// primary: an opGet that must read the shard's primary, not one of its
	// replicas, which may be behind it: a read after WATCH outside the
	// transaction (withShardReads). A batch holding one reads the primary.
	primary bool
}

// opResult is the outcome of one op.
type opResult struct {
	value []byte // opGet: the value
	found bool   // opGet: key present; opSet: written (false when NX/XX refused); opDel/opExists: key present
	// linear: an opGet sent alone with linearizable_reads on, so that its
	// fetch left the coalescing group as it was sent (Gateway.flush)
	linear bool
	// replica: set on a batch's first result when a replica of the shard
	// answered the batch (redis_backend.go): its primary was not asked, so
	// the shard's health (health.go) stays as it is
	replica bool
	n       int64 // opIncr: the new value
	// expireAt is the value's expiry (unix ns; 0 none) for an opGet on memkv,
	// or on Redis with the caching tier on, so the tier can honour TTLs.
	expireAt int64
	err      error // this op alone failed (the others of its batch may have succeeded)
	batch    int32 // ops in the backend call that carried it, when traces are on
}

// Backend is the store behind the gateway: shards numbered 0..Shards()-1, each
// taking batches of ops in one round trip. Implementations: memkvBackend
// (embedded, the default) and redisBackend (Redis shards).
type Backend interface {
	// Shards returns the number of shards.
	Shards() int
	// Do runs ops on shard in order and sets out[i] to the result of ops[i].
	// A non-nil error fails the whole batch (the shard is unreachable). It
	// keeps neither ops nor a slice of it once it returns: the caller's
	// array of ops is reused for the next batch (opsPool).
	Do(ctx context.Context, shard int, ops []op, out []opResult) error
	// Close releases the backend's resources.
	Close() error
}

// errNotInteger is the Redis error for INCR on a value that is not an integer.
var errNotInteger = errors.New("ERR value is not an integer or out of range")

// memkvBackend keeps each shard in its own memkv.Store. Values carry an
// 8-byte expiry header (unix nanoseconds, 0 for none); expired keys read as
// absent and are deleted lazily by the next write, or by the expiry sweep:
// writes walk on through their shard's keys, sweepPerWrite keys per write
// (sweepBatch keys at a time), and delete the expired ones they meet (as
// Redis's active expiry does), so keys that expire and are never touched
// again do not hold memory for good.
type memkvBackend struct {
	stores []*memkv.Store
	sweeps []expirySweep // per shard
	now    func() time.Time
}

// sweepPerWrite is how many keys the expiry sweep walks per write. A full
// pass over a shard of n keys takes n/sweepPerWrite writes, which can leave
// at most that many keys expired behind it: expired keys hold at most about
// a third of the live keys' room. The writes' walks are gathered into one of
// sweepBatch keys or more (a walk's first seek costs as much as 16 keys; a
// sweep of 4 keys per write added a tenth to a SET on memkv).
const (
	sweepPerWrite = 4
	sweepBatch    = 64
	sweepScan     = 16 * sweepBatch // keys read at one version (sweep)
)

// expirySweep is a shard's expiry sweep: where it goes on from, and how many
// keys the writes since its last walk owe it.
type expirySweep struct {
	owed atomic.Int64
	mu   sync.Mutex
	next []byte // the first key of the next walk (empty: the first key)
	buf  [][]byte
}

var _ Backend = (*memkvBackend)(nil)

// memkvHistoryBytes bounds the bytes a shard's history window holds, as well
// as its 65,536 versions: without it a key overwritten in a loop held a
// copy of its value per version (144 MiB for 8,192 SETs of 16 KiB to one
// key, where Redis holds one), up to 64 GiB for values of 1 MiB. A
// transaction whose snapshot falls behind it answers null at EXEC, as one
// 65,536 versions old does.
const memkvHistoryBytes = 32 << 20

func newMemkvBackend(shards int) (*memkvBackend, error) {
	b := &memkvBackend{now: time.Now, sweeps: make([]expirySweep, shards)}
	for range shards {
		// No bound of memkv's on a commit's bytes: the gateway bounds them,
		// a command's by max_request_bytes, a transaction's by
		// max_tx_commands of those. Its default, 10 MiB, failed EXEC of a
		// transaction that wrote more, which Redis runs.
		s, err := memkv.New(memkv.Config{HistoryVersions: 1 << 16, HistoryBytes: memkvHistoryBytes, MaxCommitBytes: math.MaxInt})
		if err != nil {
			return nil, err
		}
		b.stores = append(b.stores, s)
	}
	return b, nil
}

func (b *memkvBackend) Shards() int  { return len(b.stores) }
func (b *memkvBackend) Close() error { return nil }

func (b *memkvBackend) Do(ctx context.Context, shard int, ops []op, out []opResult) error {
	if shard < 0 || shard >= len(b.stores) {
		return fmt.Errorf("memkv: no shard %d", shard)
	}
	s := b.stores[shard]
	// Plain reads of one batch share one read version: a multi-get at a snapshot.
	rv := s.ReadVersion()
	now := b.now()
	writes := 0
	run, rereads := 0, 0 // the first op read at rv; the runs of reads made again
	for i := 0; i < len(ops); i++ {
		switch o := ops[i]; {
		case o.kind == opGet || o.kind == opExists:
			v, ok, exp, err := b.read(ctx, s, rv, o.key, now)
			if errors.Is(err, memkv.ErrTooOld) && rereads < 100 {
				// The window passed rv (memkvHistoryBytes): read the whole
				// run again at the newest version, not this key alone, or
				// an MGET could see an MSET half applied.
				rv, rereads = s.ReadVersion(), rereads+1
				i = run - 1
				continue
			}
			out[i] = opResult{value: v, found: ok, expireAt: exp, err: err}
		case i+1 < len(ops) && ops[i+1].joint:
			// A multi-key write's keys commit as one, as Redis applies
			// MSET and DEL: a read never sees some of them written.
			j := i + 1
			for j < len(ops) && ops[j].joint {
				j++
			}
			b.writeJoint(ctx, s, ops[i:j], out[i:j], now)
			writes += j - i
			i = j - 1
			rv, run = s.ReadVersion(), j
		default:
			out[i] = b.write(ctx, s, o, now)
			rv, run = s.ReadVersion(), i+1 // later reads of the batch see this write
			writes++
		}
	}
	b.owe(ctx, shard, writes, now)
	return nil
}

// owe adds the walk that writes writes on shard owe the expiry sweep, and
// walks once a sweepBatch of keys is owed. The writes EXEC commits owe it
// too: before, only the backend's batches did, and a shard written through
// transactions alone kept every expired key for good.
func (b *memkvBackend) owe(ctx context.Context, shard, writes int, now time.Time) {
	if writes > 0 && b.sweeps[shard].owed.Add(int64(writes*sweepPerWrite)) >= sweepBatch {
		b.sweep(ctx, shard, now)
	}
}

// writeJoint applies ops, the SETs without options or the DELs of one
// command on this shard, in one commit: the DELs' keys are read, and
// validated, at its read version; a conflict retries all of them. A key the
// run writes twice takes its last write. The commit carries all their keys
// and values, bounded by max_request_bytes (newMemkvBackend lifts memkv's
// own bound).
func (b *memkvBackend) writeJoint(ctx context.Context, s *memkv.Store, ops []op, out []opResult, now time.Time) {
	for attempt := 0; ; attempt++ {
		rv := s.ReadVersion()
		req := &memkv.CommitRequest{ReadVersion: rv}
		present := map[string]bool{} // the keys written so far, and whether they exist after
		var err error
		for i := 0; i < len(ops) && err == nil; i++ {
			switch o := ops[i]; o.kind {
			case opSet:
				req.Sets = append(req.Sets, []byte(o.key), encodeValue(o.value, expiryAt(now, o.ttl)))
				present[o.key] = true
				out[i] = opResult{found: true}
			case opDel:
				ok, seen := present[o.key]
				stored := ok
				if !seen {
					var raw []byte
					raw, stored, err = s.Get(ctx, rv, []byte(o.key))
					if stored {
						_, ok = decodeValue(raw, now)
					}
					req.ReadKeys = append(req.ReadKeys, []byte(o.key))
				}
				if stored { // an expired value is deleted too (write)
					req.Sets = append(req.Sets, []byte(o.key), nil)
				}
				present[o.key] = false
				out[i] = opResult{found: ok}
			default:
				err = fmt.Errorf("memkv: op %d cannot be joint", o.kind)
			}
		}
		if err == nil && len(req.Sets) > 0 {
			_, err = s.Commit(ctx, req)
		}
		if err == nil {
			return
		}
		if !retryable(err) || attempt > 100 {
			for i := range out {
				out[i] = opResult{err: err}
			}
			return
		}
	}
}

// sweep walks on through the keys of shard the writes owe from where its
// last walk stopped (wrapping around at the end) and deletes those expired
// at now (expire). A batch that finds another sweeping the shard leaves the
// walk to that one, and its keys owed to the next walk; so does a walk that
// fails (the batch's context ended, or the history window passed its read
// version): dropped, they put the walk behind the writes for good. Each
// scan reads sweepScan keys at most, at a version of its own, so that a
// walk grown by those carried over does not outlast the history window and
// fail again at each batch.
func (b *memkvBackend) sweep(ctx context.Context, shard int, now time.Time) {
	sw := &b.sweeps[shard]
	if !sw.mu.TryLock() {
		return
	}
	defer sw.mu.Unlock()
	s := b.stores[shard]
	for n := int(sw.owed.Swap(0)); n > 0; {
		k := min(n, sweepScan)
		var err error
		sw.buf, err = s.Scan(ctx, s.ReadVersion(), sw.next, nil, k, false, sw.buf[:0])
		if err != nil {
			sw.owed.Add(int64(n))
			clear(sw.buf[:cap(sw.buf)]) // what the Scan read before it failed
			return
		}
		n -= k
		for i := 0; i+1 < len(sw.buf); i += 2 {
			if expired(sw.buf[i+1], now) {
				b.expire(ctx, s, sw.buf[i], now)
			}
		}
		if len(sw.buf) < 2*k {
			sw.next, n = sw.next[:0], 0 // the end: start again from the first key
		} else {
			sw.next = append(append(sw.next[:0], sw.buf[len(sw.buf)-2]...), 0) // the least key after the last
		}
		clear(sw.buf) // hold no value of the store
	}
}

// expire deletes key if its value is still expired at now: read at the
// newest version, committed with the key in the read set (a conflict means
// it was written meanwhile: live again). Each delete reads afresh, so a
// walk's own deletes never put its read version behind the history window.
func (b *memkvBackend) expire(ctx context.Context, s *memkv.Store, key []byte, now time.Time) {
	rv := s.ReadVersion()
	raw, ok, err := s.Get(ctx, rv, key)
	if err != nil || !ok || !expired(raw, now) {
		return
	}
	_, _ = s.Commit(ctx, &memkv.CommitRequest{ReadVersion: rv, ReadKeys: [][]byte{key}, Sets: [][]byte{key, nil}})
}

// expired reports whether raw (a value with its expiry header) has an
// expiry at or before now.
func expired(raw []byte, now time.Time) bool {
	if len(raw) < 8 {
		return false
	}
	exp := int64(binary.BigEndian.Uint64(raw))
	return exp != 0 && now.UnixNano() >= exp
}

func (b *memkvBackend) read(ctx context.Context, s *memkv.Store, rv uint64, key string, now time.Time) ([]byte, bool, int64, error) {
	raw, ok, err := s.Get(ctx, rv, []byte(key))
	if err != nil || !ok {
		return nil, false, 0, err
	}
	v, live := decodeValue(raw, now)
	if !live {
		return nil, false, 0, nil
	}
	return v, true, int64(binary.BigEndian.Uint64(raw)), nil
}

// write applies one write op as an optimistic transaction: read the key, decide,
// commit with the key in the read set; retry on conflict.
func (b *memkvBackend) write(ctx context.Context, s *memkv.Store, o op, now time.Time) opResult {
	w := writeReqs.Get().(*writeReq)
	defer w.put()
	w.key = append(w.key[:0], o.key...)
	k := w.key
	for attempt := 0; ; attempt++ {
		rv := s.ReadVersion()
		raw, ok, err := s.Get(ctx, rv, k)
		if err != nil {
			if retryable(err) && attempt <= 100 {
				continue // the window passed rv before the read (memkvHistoryBytes)
			}
			return opResult{err: err}
		}
		var cur []byte
		stored := ok // a value is stored, live or expired
		if ok {
			cur, ok = decodeValue(raw, now)
		}
		var res opResult
		var newVal []byte // nil deletes
		write := true
		switch o.kind {
		case opSet:
			if (o.nx && ok) || (o.xx && !ok) {
				return opResult{}
			}
			w.val = appendValue(w.val[:0], o.value, expiryAt(now, o.ttl))
			newVal, res.found = w.val, true
		case opDel:
			// An expired value counts as absent but is deleted too, as
			// Redis deletes an expired key a command touches: kept, it
			// held its memory and came back if the wall clock stepped back.
			res.found = ok
			write = stored
		case opIncr:
			n := int64(0)
			if ok {
				n, err = parseRedisInt(cur)
				if err != nil {
					return opResult{err: errNotInteger}
				}
			}
			if (o.delta > 0 && n > (1<<63-1)-o.delta) || (o.delta < 0 && n < -(1<<63)-o.delta) {
				return opResult{err: errors.New("ERR increment or decrement would overflow")}
			}
			n += o.delta
			res.n = n
			exp := int64(0)
			if ok {
				exp = int64(binary.BigEndian.Uint64(raw[:8])) // INCR keeps the TTL
			}
			newVal = encodeValue(strconv.AppendInt(nil, n, 10), exp)
		}
		if !write {
			return res
		}
		w.read[0], w.sets[0], w.sets[1] = k, k, newVal
		w.req = memkv.CommitRequest{ReadVersion: rv, ReadKeys: w.read[:], Sets: w.sets[:]}
		_, err = s.Commit(ctx, &w.req)
		if err == nil {
			return res
		}
		if !retryable(err) || attempt > 100 {
			return opResult{err: err}
		}
	}
}

// writeReq is the commit request of one write (memkvBackend.write), with
// room for its key, its encoded value and its two slices: pooled, since the
// store keeps no reference to a request or its slices once Commit returns
// (it copies the keys and values it keeps), so a write allocates none of
// them.
type writeReq struct {
	req      memkv.CommitRequest
	read     [1][]byte
	sets     [2][]byte
	key, val []byte
}

var writeReqs = sync.Pool{New: func() any { return new(writeReq) }}

// maxPooledWrite bounds the key and value room a pooled writeReq keeps: one
// large SET does not pin its size in the pool.
const maxPooledWrite = 64 << 10

// put drops w's references to the write's bytes and returns it to the pool.
func (w *writeReq) put() {
	if cap(w.key)+cap(w.val) > maxPooledWrite {
		return
	}
	w.req, w.read, w.sets = memkv.CommitRequest{}, [1][]byte{}, [2][]byte{}
	writeReqs.Put(w)
}

// retryable reports whether a write that failed with err runs again at a
// new read version: it conflicted, or the history window (memkvHistoryBytes)
// passed its read version while it ran.
func retryable(err error) bool {
	return errors.Is(err, memkv.ErrConflict) || errors.Is(err, memkv.ErrTooOld)
}

func encodeValue(v []byte, expireAt int64) []byte {
	return appendValue(make([]byte, 0, 8+len(v)), v, expireAt)
}

// appendValue appends v with its expiry header (encodeValue) to dst.
func appendValue(dst, v []byte, expireAt int64) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uint64(expireAt))
	return append(dst, v...)
}

// decodeValue strips the expiry header; it reports false for an expired value.
func decodeValue(raw []byte, now time.Time) ([]byte, bool) {
	if len(raw) < 8 || expired(raw, now) {
		return nil, false
	}
	return raw[8:], true
}

// asMemkv returns the memkv backend under b, seeing through the chaos
// wrapper, for the features only memkv has (transactions, KVSCAN, the
// caching tier's feed).
func asMemkv(b Backend) (*memkvBackend, bool) {
	m, ok := unwrapChaos(b).(*memkvBackend)
	return m, ok
}

// expiryNow is the time the gateway decides a key's expiry at: on memkv
// the backend's clock, which its commands outside a transaction and the
// WATCH and EXEC checks (expireWatched, watchedExpired) read; the wall clock
// otherwise. The commands of a transaction read the wall clock: with a
// backend clock apart from it (a test's), a GET in EXEC answered a key a GET
// outside answered expired, and a SET PX in EXEC wrote one already expired.
func (g *Gateway) expiryNow() time.Time {
	if b, ok := asMemkv(g.backend); ok {
		return b.now()
	}
	if b, ok := asRedis(g.backend); ok && b.now != nil {
		return b.now()
	}
	return time.Now()
}

// asRedis returns the Redis backend under b, seeing through the chaos wrapper.
func asRedis(b Backend) (*redisBackend, bool) {
	r, ok := unwrapChaos(b).(*redisBackend)
	return r, ok
}

func unwrapChaos(b Backend) Backend {
	if c, ok := b.(*chaosBackend); ok {
		return c.Backend
	}
	return b
}

// parseRedisInt parses b as Redis does (string2ll): a decimal int64 in its
// canonical form only, so "+1", "01", "-0", " 1" and "" are not integers.
func parseRedisInt(b []byte) (int64, error) {
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return 0, err
	}
	if len(b) > 1 && (b[0] == '+' || b[0] == '0' || (b[0] == '-' && b[1] == '0')) || len(b) == 1 && b[0] == '+' {
		return 0, errNotInteger
	}
	return n, nil
}

// opsPool holds the arrays a batch's ops are gathered into for one backend
// call (Gateway.flush) and the keys of a batch of GETs (redisBackend.Do):
// made per batch, they were about a quarter of the bytes the gateway
// allocated per GET at pipeline 16 on Redis shards (p16_profile64.txt), and
// they live only until Do returns. Arrays past maxPooledOps are left to the
// collector, so that one huge batch does not pin its array in the pool.
var (
	opsPool  = sync.Pool{New: func() any { return new([]op) }}
	keysPool = sync.Pool{New: func() any { return new([]string) }}
)

// maxPooledOps is the largest array of ops or keys put back in its pool.
const maxPooledOps = 4096

// fromPool returns an empty array from pool (opsPool or keysPool) with room
// for n.
func fromPool[E any](pool *sync.Pool, n int) *[]E {
	p := pool.Get().(*[]E)
	*p = slices.Grow((*p)[:0], n)
	return p
}

// toPool clears p (its ops and keys hold the commands' bytes) and puts it
// back in pool, unless it is larger than maxPooledOps.
func toPool[E any](pool *sync.Pool, p *[]E) {
	if cap(*p) > maxPooledOps {
		return
	}
	clear(*p)
	*p = (*p)[:0]
	pool.Put(p)
}
