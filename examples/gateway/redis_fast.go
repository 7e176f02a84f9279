package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/redis/rueidis"
)

// fastShard is one Redis server (a primary or a replica) behind rueidis,
// whose auto-pipelining multiplexes the batches of every gateway goroutine over
// a few connections and writes whatever is pending in one system call, as
// twemproxy does; go-redis takes a pooled connection, a write and a read per
// batch. It carries the data path; transactions and the caching tier's
// markers keep go-redis (a script call per EXEC), and the tier's
// subscription is a connection of its own per shard (feedconn.go).
//
// rueidis dials when its client is made; a fastShard makes it on first use,
// so a server that is down when the gateway starts fails only its keys and
// serves once it is up. One dial runs at a time (bounded by the dial
// timeout), and the batches that waited for a dial that failed fail with its
// error rather than queue for dials of their own; a batch that arrives after
// it dials again. A batch waits for a dial until its context ends at most
// (the dial goes on for the batches after it): a replica's read keeps the
// half of its time that Do gives it, and the primary has the rest. After
// close, it dials no more: every batch fails with errShardClosed.
//
// rueidis sends a connection's setup, CLIENT SETNAME included, again on
// each connection it dials anew (one the shard or the network cut). A shard
// whose ACL user lost CLIENT after the client was dialed named refuses that
// setup: the batches sent on such a connection fail with the NOPERM, and
// the shard then drops its client for one dialed unnamed (dropNamed), whose
// connections serve. Before, every batch on a connection dialed again
// failed with the NOPERM for as long as CLIENT stayed refused: a shard whose
// ACL user may not run CLIENT served only until its connections were cut.
type fastShard struct {
	addr   string
	pool   int
	auth   redisAuth
	mu     sync.Mutex                     // protects dial and closed
	c      atomic.Pointer[rueidis.Client] // nil until a dial succeeds, and after close
	dial   *fastDial                      // the dial running, or nil
	failed atomic.Uint64                  // failed dials so far
	closed bool                           // close ran: no more dials
	// unnamed: CLIENT SETNAME was refused (NOPERM) in a connection's setup:
	// the client is dialed with no name from then on.
	unnamed atomic.Bool
}

// fastDial is one dial of a fastShard's client.
type fastDial struct {
	done chan struct{}  // closed when the dial ended
	c    rueidis.Client // its client (set before done is closed)
	err  error          // or its error
}

// errShardClosed fails the batches that reach a fastShard after its close
// (during a shutdown): a client dialed then would be closed by nobody.
var errShardClosed = errors.New("client closed")

func newFastShard(addr string, pool int, auth redisAuth) *fastShard {
	return &fastShard{addr: addr, pool: pool, auth: auth}
}

// client returns the rueidis client, dialing it if need be; it waits for
// the dial until ctx ends.
func (f *fastShard) client(ctx context.Context) (rueidis.Client, error) {
	if c := f.c.Load(); c != nil {
		return *c, nil
	}
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return nil, fmt.Errorf("redis %s: %w", f.addr, errShardClosed)
	}
	if c := f.c.Load(); c != nil {
		f.mu.Unlock()
		return *c, nil
	}
	d := f.dial
	if d == nil {
		d = &fastDial{done: make(chan struct{})}
		f.dial = d
		go f.dialOnce(d)
	}
	f.mu.Unlock()
	select {
	case <-d.done:
	case <-ctx.Done():
		return nil, fmt.Errorf("redis %s: dialing: %w", f.addr, ctx.Err())
	}
	return d.c, d.err
}

// dialOnce runs dial d, stores its client (or closes it when close ran
// meanwhile) and ends d.
func (f *fastShard) dialOnce(d *fastDial) {
	name := clientName
	if f.unnamed.Load() {
		name = ""
	}
	c, err := dialFast(f.addr, f.pool, f.auth, name)
	if name != "" && nameRefused(err) {
		// The shard's ACL user may not run CLIENT: rueidis fails the setup
		// of every connection that sends CLIENT SETNAME, so the shard was
		// down for good. Its connections go unnamed, from now on.
		f.unnamed.Store(true)
		c, err = dialFast(f.addr, f.pool, f.auth, "")
	}
	f.mu.Lock()
	switch {
	case err != nil:
		d.err = err
		f.failed.Add(1)
	case f.closed:
		c.Close()
		d.err = fmt.Errorf("redis %s: %w", f.addr, errShardClosed)
	default:
		d.c = c
		f.c.Store(&c)
	}
	f.dial = nil
	f.mu.Unlock()
	close(d.done)
}

// dropNamed handles err, c's answer to a batch: if it is the shard's
// refusal of CLIENT SETNAME in the setup of a connection c dialed again
// (nameRefused), the shard drops c, the first time, so that the next batch
// dials a client with no name (dialOnce). The batches that c still runs
// get their replies before it closes (rueidis's Close); the batches that
// hold c and have not sent yet fail with its error for a closed client.
func (f *fastShard) dropNamed(c rueidis.Client, err error) {
	if !nameRefused(err) || !f.unnamed.CompareAndSwap(false, true) {
		return
	}
	// A compare and swap: close may take the client meanwhile, and only one
	// of the two closes it.
	if p := f.c.Load(); p != nil && *p == c && f.c.CompareAndSwap(p, nil) {
		c.Close()
	}
}

// nameRefused reports whether err is an error reply that refuses CLIENT
// (NOPERM, naming the command "client|setname", or "client" before Redis 7):
// the data path sends no CLIENT command, so it is a connection's setup that
// the shard refused, and the batch ran nothing. A nil err returns before re
// is declared: re escapes (errors.As takes its address), and declared first
// it was allocated on every batch that dropNamed checks, answered or not.
func nameRefused(err error) bool {
	if err == nil {
		return false
	}
	var re *rueidis.RedisError
	return errors.As(err, &re) && setNameRefused(re) && strings.Contains(re.Error(), "'client")
}

// close closes the client if one was dialed, after waiting for a dial
// running (bounded by the dial timeout); later calls of client fail with
// errShardClosed and dial nothing. A batch that loaded the client before
// gets rueidis's own error for a closed client.
func (f *fastShard) close() {
	f.mu.Lock()
	f.closed = true
	d := f.dial
	f.mu.Unlock()
	if d != nil {
		<-d.done
	}
	if c := f.c.Swap(nil); c != nil {
		(*c).Close()
	}
}

// dialFast connects to addr over at most pool pipelined connections (the
// largest power of two not above pool, at most 2^8: rueidis's
// MaxPipelineMultiplex bounds the exponent), logging in with auth and
// naming each connection name ("": unnamed).
func dialFast(addr string, pool int, auth redisAuth, name string) (rueidis.Client, error) {
	mux := 0
	for 2<<mux <= pool && mux < rueidis.MaxPipelineMultiplex {
		mux++
	}
	if mux == 0 {
		// rueidis reads a multiplex of 0 as its default, which grows with
		// the CPUs (up to 4 connections); a negative one is one connection.
		mux = -1
	}
	c, err := rueidis.NewClient(rueidis.ClientOption{
		InitAddress:       []string{addr},
		Username:          auth.user,
		Password:          auth.password,
		ForceSingleClient: true,
		DisableCache:      true,
		DisableRetry:      true, // a batch fails fast; the client decides to retry
		AlwaysRESP2:       true,
		AlwaysPipelining:  true, // a reader per connection at all times: a server that goes away is noticed at once, not by the next batch
		PipelineMultiplex: mux,
		// rueidis sends a pipeline of BlockingPipeline commands or more (2,000
		// by default) over a dedicated connection of its own, one more than
		// the pool; a batch can be that long (a command per op when it mixes
		// kinds, and a PTTL per key in the caching tier's fills), so every
		// pipeline goes over the multiplexed connections.
		BlockingPipeline: math.MaxInt,
		BlockingPoolSize: 1, // for blocking commands, which the data path does not send
		// Every Dialer.KeepAlive, a connection that received nothing since
		// the last such check sends a PING, and fails when it goes
		// ConnWriteTimeout unanswered. A stall that starts right after a
		// reply passes the first check: it is cut after two KeepAlives and
		// the PING's wait, 2.8 s (rueidis's default KeepAlive, 1 s, made
		// that 4 s): a stalled batch fails within 3 s.
		// Dialer.Timeout bounds the connection's setup too (AUTH, HELLO,
		// CLIENT SETNAME), not the TCP connect alone.
		Dialer:           net.Dialer{Timeout: auth.dial(), KeepAlive: 400 * time.Millisecond},
		ConnWriteTimeout: 2 * time.Second,
		ClientName:       name,
	})
	if err != nil {
		return nil, fmt.Errorf("redis %s: %w", addr, err)
	}
	return c, nil
}

var _ dataClient = (*fastShard)(nil)

func (f *fastShard) replyErr(err error) bool { return isRueidisReplyErr(err) }

func (f *fastShard) mget(ctx context.Context, keys []string, out []opResult) error {
	c, err := f.client(ctx)
	if err != nil {
		if re := setupReply(err); re != nil {
			return re // Do gives it to each GET
		}
		return err
	}
	vals, err := c.Do(ctx, c.B().Mget().Key(keys...).Build()).ToArray()
	if err != nil {
		f.dropNamed(c, err)
		return err
	}
	if err := checkMGetCount(len(keys), len(vals)); err != nil {
		return err
	}
	for i, v := range vals {
		if s, err := v.ToString(); err == nil {
			out[i] = opResult{value: stringBytes(s), found: true}
		} else {
			out[i] = opResult{}
		}
	}
	return nil
}

// mset sets the pairs in order, so a key set twice keeps the later value, as
// sequential SETs would.
func (f *fastShard) mset(ctx context.Context, ops []op, out []opResult) error {
	c, err := f.client(ctx)
	if err != nil {
		return setupOutcome(err, out[:len(ops)])
	}
	kv := c.B().Mset().KeyValue()
	for _, o := range ops {
		kv = kv.KeyValue(o.key, rueidis.BinaryString(o.value))
	}
	err = c.Do(ctx, kv.Build()).Error()
	f.dropNamed(c, err)
	return msetOutcome(out[:len(ops)], err, err != nil && isRueidisReplyErr(err))
}

func (f *fastShard) pipeline(ctx context.Context, ops []op, out []opResult, ttl bool) error {
	c, err := f.client(ctx)
	if err != nil {
		return setupOutcome(err, out[:len(ops)])
	}
	if len(ops) == 1 && !(ttl && ops[0].kind == opGet) {
		return f.single(ctx, c, ops[0], out)
	}
	cmds := make(rueidis.Commands, 0, len(ops))
	var at []int // at[i]: the index in cmds of op i's command; its PTTL follows a GET with ttl
	if ttl || slices.ContainsFunc(ops, func(o op) bool { return o.joint }) {
		at = make([]int, len(ops))
	}
	for i := 0; i < len(ops); i++ {
		if at != nil {
			at[i] = len(cmds)
		}
		if j := jointEnd(ops, i); j > i+1 {
			cmds = append(cmds, jointCommand(c, ops[i:j]))
			for k := i + 1; k < j; k++ {
				at[k] = at[i]
			}
			i = j - 1
			continue
		}
		cmds = append(cmds, opCommand(c, ops[i]))
		if ttl && ops[i].kind == opGet {
			cmds = append(cmds, c.B().Pttl().Key(ops[i].key).Build())
		}
	}
	now := time.Now() // before the call: the cached expiry is never late
	res := c.DoMulti(ctx, cmds...)
	f.dropNamed(c, res[0].Error()) // a refused setup fails every command of the pipeline
	for i := 0; i < len(ops); i++ {
		j := i
		if at != nil {
			j = at[i]
		}
		r := res[j]
		err := r.Error()
		if err != nil && !rueidis.IsRedisNil(err) && !isRueidisReplyErr(err) {
			return err // the shard is unreachable: the whole batch fails
		}
		if e := jointEnd(ops, i); e > i+1 {
			n, _ := r.AsInt64() // DEL's count; MSET's OK has none
			jointOutcome(ops[i].kind, n, err, out[i:e])
			i = e - 1
			continue
		}
		out[i] = fastResult(ops[i].kind, r)
		if ttl && ops[i].kind == opGet && out[i].found {
			// As getsWithTTL: a PTTL lost with the connection fails the
			// batch, and its error reply fails its GET. Read as "expire at
			// once", either made the GET of a key that exists answer null.
			p := res[j+1]
			if err := p.Error(); err != nil {
				if !isRueidisReplyErr(err) {
					return err // the connection was lost after the GET: the whole batch fails
				}
				out[i] = opResult{err: err}
				continue
			}
			out[i].expireAt = pttlExpiry(now, p)
		}
	}
	return nil
}

// single is pipeline of one op that is one command (a GET without its
// PTTL): sent with Do, the batch allocates neither the slice of commands
// nor rueidis's slice of results, which DoMulti makes for every call (its
// pool of them is never given back). At pipeline 1 most batches that are
// not all GETs hold a single op. rueidis sends one command with Do as it
// does with DoMulti: over the same connection, without retries.
func (f *fastShard) single(ctx context.Context, c rueidis.Client, o op, out []opResult) error {
	r := c.Do(ctx, opCommand(c, o))
	err := r.Error()
	f.dropNamed(c, err) // a refused setup fails the command
	if err != nil && !rueidis.IsRedisNil(err) && !isRueidisReplyErr(err) {
		return err // the shard is unreachable: the batch fails
	}
	out[0] = fastResult(o.kind, r)
	return nil
}

// opCommand is the command of an op that is not part of a joint run.
func opCommand(c rueidis.Client, o op) rueidis.Completed {
	switch o.kind {
	case opExists:
		return c.B().Exists().Key(o.key).Build()
	case opDel:
		return c.B().Del().Key(o.key).Build()
	case opIncr:
		return c.B().Incrby().Key(o.key).Increment(o.delta).Build()
	case opSet:
		return setCommand(c, o)
	default: // opGet
		return c.B().Get().Key(o.key).Build()
	}
}

// pttlExpiry is ttlExpiry of a PTTL reply (an unreadable reply: expire at
// once, the safe side).
func pttlExpiry(now time.Time, r rueidis.RedisResult) int64 {
	ms, err := r.AsInt64()
	if err != nil {
		return now.UnixNano()
	}
	return ttlExpiry(now, ms)
}

// jointCommand is the one command of a joint run of ops (jointEnd): DEL of
// its keys, or MSET of its pairs (the keys of an MSET are plain SETs).
func jointCommand(c rueidis.Client, run []op) rueidis.Completed {
	if run[0].kind == opDel {
		keys := make([]string, len(run))
		for i, o := range run {
			keys[i] = o.key
		}
		return c.B().Del().Key(keys...).Build()
	}
	kv := c.B().Mset().KeyValue()
	for _, o := range run {
		kv = kv.KeyValue(o.key, rueidis.BinaryString(o.value))
	}
	return kv.Build()
}

func setCommand(c rueidis.Client, o op) rueidis.Completed {
	s := c.B().Set().Key(o.key).Value(rueidis.BinaryString(o.value))
	px := o.ttl.Milliseconds()
	switch {
	case o.nx && px > 0:
		return s.Nx().PxMilliseconds(px).Build()
	case o.nx:
		return s.Nx().Build()
	case o.xx && px > 0:
		return s.Xx().PxMilliseconds(px).Build()
	case o.xx:
		return s.Xx().Build()
	case px > 0:
		return s.PxMilliseconds(px).Build()
	}
	return s.Build()
}

// getsWithTTL reads keys as one MGET and their PTTLs, pipelined in one
// round trip: the caching tier stores each value with its expiry.
func (f *fastShard) getsWithTTL(ctx context.Context, keys []string, out []opResult) error {
	c, err := f.client(ctx)
	if err != nil {
		return setupOutcome(err, out[:len(keys)])
	}
	cmds := make(rueidis.Commands, 0, 1+len(keys))
	cmds = append(cmds, c.B().Mget().Key(keys...).Build())
	for _, k := range keys {
		cmds = append(cmds, c.B().Pttl().Key(k).Build())
	}
	now := time.Now()
	res := c.DoMulti(ctx, cmds...)
	vals, err := res[0].ToArray()
	if err != nil {
		f.dropNamed(c, err)
		if !isRueidisReplyErr(err) {
			return err // the shard is unreachable: the whole batch fails
		}
		for i := range out {
			out[i] = opResult{err: err}
		}
		return nil
	}
	for _, r := range res[1:] {
		if err := r.Error(); err != nil && !isRueidisReplyErr(err) {
			return err // the connection was lost after the MGET: the whole batch fails
		}
	}
	if err := checkMGetCount(len(keys), len(vals)); err != nil {
		return err
	}
	for i, v := range vals {
		s, err := v.ToString()
		if err != nil {
			out[i] = opResult{}
			continue
		}
		out[i] = opResult{value: []byte(s), found: true}
		if _, err := res[1+i].AsInt64(); err != nil {
			out[i] = opResult{err: err}
			continue
		}
		out[i].expireAt = pttlExpiry(now, res[1+i])
	}
	return nil
}

func fastResult(kind opKind, r rueidis.RedisResult) opResult {
	err := r.Error()
	if rueidis.IsRedisNil(err) {
		return opResult{} // GET of a missing key; SET NX/XX refused
	}
	if err != nil {
		return opResult{err: err}
	}
	switch kind {
	case opGet:
		s, err := r.ToString()
		if err != nil {
			return opResult{err: err}
		}
		return opResult{value: stringBytes(s), found: true}
	case opSet:
		return opResult{found: true}
	default:
		n, err := r.AsInt64()
		if err != nil {
			return opResult{err: err}
		}
		return opResult{found: n > 0, n: n}
	}
}

// stringBytes returns s's bytes without a copy. rueidis allocates each
// value's string as it parses a reply and keeps no reference to it, and the
// gateway never writes into a value (it writes it out, or keeps it as it is),
// so the bytes stay as immutable as the string. An empty value stays a
// non-nil empty slice: a nil one is replied as a missing key.
func stringBytes(s string) []byte {
	if len(s) == 0 {
		return []byte{}
	}
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// setupReply returns the shard's error reply that refused a connection's
// setup (its dial's AUTH, CLIENT SETNAME, ...: WRONGPASS, NOPERM), which
// client's error wraps, or nil when err is none (the shard is unreachable).
// The shard answered and ran nothing, as go-redis's refused setup
// (setupFailed): each op fails with the reply as the shard gave it. Taken
// for an unreachable shard, it failed the batch (the shard counted down, the
// ops answered "backend shard N", the form of an unknown outcome).
func setupReply(err error) error {
	var re *rueidis.RedisError
	if errors.As(err, &re) && !re.IsNil() {
		return re
	}
	return nil
}

// setupOutcome is the outcome of a batch whose client could not be had
// (err): each op of out fails with the shard's refusal of the setup
// (setupReply), or else the whole batch fails with err.
func setupOutcome(err error, out []opResult) error {
	re := setupReply(err)
	if re == nil {
		return err
	}
	for i := range out {
		out[i] = opResult{err: re}
	}
	return nil
}

func isRueidisReplyErr(err error) bool {
	_, ok := rueidis.IsRedisErr(err)
	return ok && !errors.Is(err, context.DeadlineExceeded)
}
