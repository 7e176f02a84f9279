package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisBackend sends each shard's batches to one redis-server over a small
// bounded number of connections, whatever the number of clients of the
// gateway: the backend sees gateways x Pool data connections per shard (the
// article's connection asymmetry), plus, with rueidis, the go-redis pool of
// transactions and the caching tier's markers, opened only when used, and
// the tier's subscriber. A batch of GETs is one MGET (on a replica
// when the shard has any), a batch of plain SETs one MSET; a mixed batch is
// one pipeline, in which the keys of one MSET or DEL on the shard are one
// MSET or DEL (jointEnd), applied at once as Redis applies them. MGET reads a key of another type as missing where GET
// answers WRONGTYPE, so a GET of such a key answers null or WRONGTYPE by
// the batch it shares. The data path's client is rueidis or go-redis (dataClient);
// transactions and the caching tier's markers use go-redis (shards); its
// subscriber is a connection of its own (feedconn.go).
type redisBackend struct {
	shards       []*redis.Client // go-redis on each primary: transactions, the feed, admin
	data         []dataClient    // per shard: the primary's data path
	dataReplicas [][]*replica    // per shard: its replicas; may be empty
	next         []atomic.Uint32 // per shard: round robin over its replicas
	log          *slog.Logger    // the replicas' outages (the gateway's; discardLogger until set)
	// fillTTL is set when the caching tier is on: GETs are its fills, so
	// they read the primary (replicas may lag behind the invalidations it
	// announces), and on a shard that may hold keys with an expiry
	// (volatile, kept by the feed, and set by a write through the gateway
	// that gives a key an expiry) fetch each key's PTTL in the same round
	// trip.
	fillTTL  atomic.Bool
	volatile []expiryFlag // per shard
	closers  []func() error
	// now, if set, is the gateway's clock (expiryNow) in place of the wall
	// clock: a test's, apart from the shards' clocks.
	now func() time.Time
}

// dataClient is one Redis server's data path: the four shapes of a batch.
// A returned error fails the whole batch (the server is unreachable); an
// error reply of one command goes to its op's result, except mget's, which
// is returned (a replica's sends the read to the primary; Do gives the
// primary's to each GET: replyErr tells them apart).
type dataClient interface {
	mget(ctx context.Context, keys []string, out []opResult) error
	getsWithTTL(ctx context.Context, keys []string, out []opResult) error
	mset(ctx context.Context, ops []op, out []opResult) error
	// pipeline sends ops in order; with ttl, a PTTL follows each GET so
	// that the caching tier's fills in a mixed batch keep their expiry.
	pipeline(ctx context.Context, ops []op, out []opResult, ttl bool) error
	// replyErr reports whether err is an error reply (the server is fine).
	replyErr(err error) bool
}

var _ Backend = (*redisBackend)(nil)

// redisAuth is the login of every connection to a shard or replica
// (BackendConfig's username and password): none without a password. It is
// never logged.
type redisAuth struct{ user, password string }

// newRedisBackend connects to the shards' primaries (addrs) and replicas,
// with the data path on client ("rueidis" or "go-redis"), logging in with
// auth.
func newRedisBackend(addrs []string, replicas [][]string, pool int, client string, auth redisAuth) *redisBackend {
	b := &redisBackend{dataReplicas: make([][]*replica, len(addrs)), next: make([]atomic.Uint32, len(addrs)),
		volatile: make([]expiryFlag, len(addrs)), log: discardLogger}
	dial := func(a string) dataClient {
		if client == "go-redis" {
			c := newShardClient(a, pool, auth)
			b.closers = append(b.closers, c.Close)
			return goredisData{c}
		}
		f := newFastShard(a, pool, auth)
		b.closers = append(b.closers, func() error { f.close(); return nil })
		return f
	}
	for i, a := range addrs {
		c := newShardClient(a, pool, auth)
		b.closers = append(b.closers, c.Close)
		b.shards = append(b.shards, c)
		if client == "go-redis" {
			b.data = append(b.data, goredisData{c}) // one pool for both
		} else {
			b.data = append(b.data, dial(a))
		}
		if i < len(replicas) {
			for _, r := range replicas[i] {
				b.dataReplicas[i] = append(b.dataReplicas[i], &replica{data: dial(r), shard: i, index: len(b.dataReplicas[i]), addr: r})
			}
		}
	}
	return b
}

// redisClientLog is go-redis's logger (redis.SetLogger): it passes the
// client's own lines to the gateway's log as debug lines (-v shows them).
// go-redis's default logger wrote them to stderr as they came, outside the
// gateway's log: a line for each failed dial, up to a pool's size of them per
// outage of a shard and per pool (the data path's with go-redis, the
// transactions' with either client), beside the one warning the gateway
// logs for the outage (health.go).
type redisClientLog struct{ log *slog.Logger }

func (l redisClientLog) Printf(ctx context.Context, format string, v ...any) {
	l.log.DebugContext(ctx, "redis client", "line", fmt.Sprintf(format, v...))
}

func newShardClient(a string, pool int, auth redisAuth) *redis.Client {
	opt := &redis.Options{
		Addr:             a,
		Username:         auth.user, // the feed's connection logs in with these too (feedDial)
		Password:         auth.password,
		Protocol:         2,
		PoolSize:         pool,
		MaxActiveConns:   pool, // a hard bound: PoolSize alone lets go-redis open more under load
		PipelinePoolSize: -1,   // pipelines share the bounded pool
		MinIdleConns:     0,
		MaxRetries:       -1,                     // a batch fails fast; the client decides to retry
		DialTimeout:      500 * time.Millisecond, // a shard that is down fails its keys promptly
		DialerRetries:    1,                      // after one dial timeout: go-redis's 5 attempts 100 ms apart took 2.9 s
		ReadTimeout:      2 * time.Second,
		WriteTimeout:     2 * time.Second,
		PoolTimeout:      2 * time.Second,
		// The gateway's own identity on the shard, set by OnConnect rather
		// than ClientName: go-redis fails the connection's setup when
		// CLIENT SETNAME is refused.
		OnConnect:             setClientName,
		DisableIdentity:       true,
		ContextTimeoutEnabled: true,
	}
	opt.Dialer = newDialGate(redis.NewDialer(opt), opt.DialTimeout).Dial // go-redis's own, gated
	return redis.NewClient(opt)
}

// clientName is the name of the gateway's connections to the shards (CLIENT
// LIST); the caching tier's feed adds "-feed".
const clientName = "tierkit-gateway"

// setClientName names a new go-redis connection clientName. A shard whose
// ACL user may not run CLIENT answers NOPERM: the connection serves
// unnamed, as redis-cli and most clients do, rather than failing. Failed,
// the setup failed every connection, so the shard was down for good.
func setClientName(ctx context.Context, cn *redis.Conn) error {
	if err := cn.ClientSetName(ctx, clientName).Err(); err != nil && !setNameRefused(err) {
		return err
	}
	return nil
}

// setNameRefused reports whether err is the shard's refusal of CLIENT
// SETNAME by its ACL (NOPERM): the name is left unset.
func setNameRefused(err error) bool {
	return err != nil && strings.HasPrefix(err.Error(), "NOPERM")
}

func (b *redisBackend) Shards() int { return len(b.shards) }

func (b *redisBackend) Close() error {
	var errs []error
	for _, c := range b.closers {
		errs = append(errs, c())
	}
	return errors.Join(errs...)
}

func (b *redisBackend) Do(ctx context.Context, shard int, ops []op, out []opResult) error {
	p := b.data[shard]
	if allGets(ops) {
		keys := make([]string, len(ops))
		for i, o := range ops {
			keys[i] = o.key
		}
		fill := b.fillTTL.Load() // GETs are the caching tier's fills
		if fill && b.volatile[shard].isSet() {
			return p.getsWithTTL(ctx, keys, out)
		}
		if len(b.dataReplicas[shard]) > 0 && !fill && !anyPrimary(ops) {
			now := time.Now()
			if r := b.pickReplica(shard, now); r != nil {
				// The replica has half the time left at most: one that hangs
				// leaves the primary the other half to answer in.
				rctx, cancel := ctx, context.CancelFunc(func() {})
				if dl, ok := ctx.Deadline(); ok {
					rctx, cancel = context.WithDeadline(ctx, now.Add(dl.Sub(now)/2))
				}
				err := r.data.mget(rctx, keys, out)
				cancel()
				if err == nil {
					r.answered(b.log)
					out[0].replica = true // the primary was not asked: its health stays as it is
					return nil
				}
				// The replica is down, hangs, or refuses reads (MASTERDOWN,
				// LOADING: MGET has no per-key errors): read the primary.
				r.failed(ctx, err, time.Now(), b.log)
			}
		}
		err := p.mget(ctx, keys, out)
		if err != nil && p.replyErr(err) {
			// The primary answered (LOADING, BUSY, ...): each GET fails with
			// its reply, as each SET of an MSET does; the shard is up.
			for i := range ops {
				out[i] = opResult{err: err}
			}
			return nil
		}
		return err
	}
	if len(ops) > 1 && allPlainSets(ops) {
		// Plain SETs (no TTL, NX or XX) of one batch are one MSET: one command
		// for the shard to parse and execute instead of one per SET. The keys
		// are set in order, so a key set twice keeps the later value, as
		// sequential SETs would.
		return p.mset(ctx, ops, out)
	}
	if opsGiveExpiry(ops) {
		defer b.volatile[shard].writing()()
	}
	// A batch of one tenant and shard mixes the caching tier's fills with
	// writes: those GETs need their expiry too.
	return p.pipeline(ctx, ops, out, b.fillTTL.Load() && b.volatile[shard].isSet())
}

// opsGiveExpiry reports whether ops give a key an expiry (SET with EX or PX).
// Do then makes the shard count as volatile (its fills fetch PTTL) before
// they are sent, until they are answered (expiryFlag.writing): the feed
// marks it so only when it delivers the key's expire notification, and a
// GET that the client sends once the write is answered may fill before
// then. Such a fill read no PTTL and cached the key with no expiry, so the
// client read its own expired key back for as long as the feed lagged (up
// to the staleness bound).
func opsGiveExpiry(ops []op) bool {
	for _, o := range ops {
		if o.kind == opSet && o.ttl > 0 {
			return true
		}
	}
	return false
}

// goredisData is the go-redis data path: a pooled connection, a write and a
// read per batch.
type goredisData struct{ c *redis.Client }

func (g goredisData) replyErr(err error) bool { return isReplyError(err) }

func (g goredisData) mget(ctx context.Context, keys []string, out []opResult) error {
	vals, err := g.c.MGet(ctx, keys...).Result()
	if err != nil {
		return err
	}
	return mgetResults(vals, out[:len(keys)])
}

func (g goredisData) getsWithTTL(ctx context.Context, keys []string, out []opResult) error {
	return getsWithTTL(ctx, g.c, keys, out)
}

func (g goredisData) mset(ctx context.Context, ops []op, out []opResult) error {
	pairs := make([]any, 0, 2*len(ops))
	for _, o := range ops {
		pairs = append(pairs, o.key, o.value)
	}
	err := g.c.MSet(ctx, pairs...).Err()
	return msetOutcome(out[:len(ops)], err, err != nil && isReplyError(err))
}

func (g goredisData) pipeline(ctx context.Context, ops []op, out []opResult, ttl bool) error {
	c := g.c
	cmds := make([]redis.Cmder, len(ops))
	var ttls []*redis.IntCmd
	if ttl {
		ttls = make([]*redis.IntCmd, len(ops))
	}
	now := time.Now() // before the call: the cached expiry is never late
	_, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i := 0; i < len(ops); i++ {
			if j := jointEnd(ops, i); j > i+1 {
				cmds[i] = jointCmd(ctx, p, ops[i:j]) // the ops after it share it
				i = j - 1
				continue
			}
			switch o := ops[i]; o.kind {
			case opGet:
				cmds[i] = p.Get(ctx, o.key)
				if ttl {
					ttls[i] = pttl(ctx, p, o.key)
				}
			case opExists:
				cmds[i] = p.Exists(ctx, o.key)
			case opDel:
				cmds[i] = p.Del(ctx, o.key)
			case opIncr:
				cmds[i] = p.IncrBy(ctx, o.key, o.delta)
			case opSet:
				a := redis.SetArgs{TTL: o.ttl}
				if o.nx {
					a.Mode = "NX"
				} else if o.xx {
					a.Mode = "XX"
				}
				cmds[i] = p.SetArgs(ctx, o.key, o.value, a)
			}
		}
		return nil
	})
	if err != nil && !isReplyError(err) && !errors.Is(err, redis.Nil) {
		return err // the shard is unreachable: the whole batch fails
	}
	if setupFailed(err, cmds, ttls) {
		for i := range ops {
			out[i] = opResult{err: err}
		}
		return nil
	}
	for i := 0; i < len(ops); i++ {
		if j := jointEnd(ops, i); j > i+1 {
			jointResults(ops[i].kind, cmds[i], out[i:j])
			i = j - 1
			continue
		}
		out[i] = redisResult(cmds[i])
		if ttls != nil && ttls[i] != nil && out[i].found {
			if err := ttls[i].Err(); err != nil {
				out[i] = opResult{err: err}
				continue
			}
			out[i].expireAt = ttlExpiry(now, ttls[i].Val())
		}
	}
	return nil
}

// jointEnd returns the end of the run of ops from i: i+1, or past the joint
// ops after it (the other keys of one MSET or DEL on this shard). The Redis
// backends send such a run as one MSET or DEL, which the shard applies at
// once, as it applies the client's command; as a pipeline of one command per
// key, a concurrent MGET could find some keys written and others not (the
// shard runs a long pipeline a read of 16 KiB at a time, serving its other
// clients between).
func jointEnd(ops []op, i int) int {
	j := i + 1
	for j < len(ops) && ops[j].joint && ops[j].kind == ops[i].kind {
		j++
	}
	return j
}

// jointCmd queues the one command of a joint run of ops: DEL of its keys, or
// MSET of its pairs (the keys of an MSET are plain SETs).
func jointCmd(ctx context.Context, p redis.Pipeliner, run []op) redis.Cmder {
	if run[0].kind == opDel {
		keys := make([]string, len(run))
		for i, o := range run {
			keys[i] = o.key
		}
		return p.Del(ctx, keys...)
	}
	pairs := make([]any, 0, 2*len(run))
	for _, o := range run {
		pairs = append(pairs, o.key, o.value)
	}
	return p.MSet(ctx, pairs...)
}

// jointResults sets out from the reply of the command that carried a joint
// run of ops of kind: for a DEL, whose reply counts the keys it deleted, the
// first that many ops found their key (a DEL command's reply is their count).
func jointResults(kind opKind, cmd redis.Cmder, out []opResult) {
	var n int64
	if c, ok := cmd.(*redis.IntCmd); ok {
		n = c.Val()
	}
	jointOutcome(kind, n, cmd.Err(), out)
}

// jointOutcome sets out from the outcome of a joint run's command: its error
// reply, or every SET written, or the first n of its DELs found.
func jointOutcome(kind opKind, n int64, err error, out []opResult) {
	for i := range out {
		switch {
		case err != nil:
			out[i] = opResult{err: err}
		case kind == opDel:
			out[i] = opResult{found: int64(i) < n}
		default:
			out[i] = opResult{found: true}
		}
	}
}

// mgetCountError is an MGET reply with another number of values than the
// keys asked (a proxy's or a fake shard's bug): its values cannot be matched
// with the keys, and the batch fails.
type mgetCountError struct{ keys, vals int }

func (e *mgetCountError) Error() string {
	return fmt.Sprintf("ERR gateway: MGET answered %d values for %d keys", e.vals, e.keys)
}

// checkMGetCount returns a *mgetCountError unless an MGET of keys keys
// answered vals values.
func checkMGetCount(keys, vals int) error {
	if keys != vals {
		return &mgetCountError{keys: keys, vals: vals}
	}
	return nil
}

// mgetResults sets out[i] from MGET's reply vals[i]: the value, or not found.
// A reply of another length than out fails with a *mgetCountError.
func mgetResults(vals []any, out []opResult) error {
	if err := checkMGetCount(len(out), len(vals)); err != nil {
		return err
	}
	for i, v := range vals {
		if s, ok := v.(string); ok {
			out[i] = opResult{value: []byte(s), found: true}
		} else {
			out[i] = opResult{}
		}
	}
	return nil
}

// getsWithTTL reads keys on c as one MGET and their PTTLs, pipelined in
// one round trip: the caching tier stores each value with its expiry.
func getsWithTTL(ctx context.Context, c *redis.Client, keys []string, out []opResult) error {
	var mget *redis.SliceCmd
	ttls := make([]*redis.IntCmd, len(keys))
	now := time.Now()
	_, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
		mget = p.MGet(ctx, keys...)
		for i, k := range keys {
			ttls[i] = pttl(ctx, p, k)
		}
		return nil
	})
	if err != nil && !isReplyError(err) {
		return err // the shard is unreachable: the whole batch fails
	}
	if setupFailed(err, []redis.Cmder{mget}, ttls) {
		for i := range out {
			out[i] = opResult{err: err}
		}
		return nil
	}
	if err := mget.Err(); err != nil {
		for i := range out {
			out[i] = opResult{err: err}
		}
		return nil
	}
	if err := mgetResults(mget.Val(), out[:len(keys)]); err != nil {
		return err
	}
	for i := range keys {
		if !out[i].found {
			continue
		}
		if err := ttls[i].Err(); err != nil {
			out[i] = opResult{err: err}
			continue
		}
		out[i].expireAt = ttlExpiry(now, ttls[i].Val())
	}
	return nil
}

// pttl queues PTTL key on p, its reply read as milliseconds: go-redis's
// PTTL converts it to a time.Duration, which overflows past 292 years
// (PEXPIRE accepts more).
func pttl(ctx context.Context, p redis.Pipeliner, key string) *redis.IntCmd {
	cmd := redis.NewIntCmd(ctx, "pttl", key)
	_ = p.Process(ctx, cmd) // queued: the pipeline's Exec reports errors
	return cmd
}

// ttlExpiry turns a PTTL reply ms (milliseconds), read at now or later, into
// the expiry the caching tier stores (unix ns; 0 none). -1 is no expiry; -2
// means the key is gone since the MGET, so the value expires at once; else
// the time left, measured from before the call so the cached expiry is never
// late. An expiry past what unix nanoseconds hold (year 2262; EXPIREAT
// 9999999999 is 2286) is farExpiry: live. Computed as now+d, it overflowed
// to a time long past, and the key was never a hit.
func ttlExpiry(now time.Time, ms int64) int64 {
	ns := now.UnixNano()
	switch {
	case ms == -2 || ms == 0:
		return ns
	case ms < 0:
		return 0
	case ms > (math.MaxInt64-ns)/int64(time.Millisecond):
		return farExpiry
	}
	return ns + ms*int64(time.Millisecond)
}

// msetOutcome sets out from the outcome of the MSET that carried a batch of
// plain SETs: every SET written; or, on a reply error (replyErr), each SET
// failed with it; any other error (the shard is unreachable) fails the whole
// batch and is returned.
func msetOutcome(out []opResult, err error, replyErr bool) error {
	switch {
	case err == nil:
		for i := range out {
			out[i] = opResult{found: true}
		}
	case replyErr:
		for i := range out {
			out[i] = opResult{err: err}
		}
	default:
		return err
	}
	return nil
}

func allPlainSets(ops []op) bool {
	for _, o := range ops {
		if o.kind != opSet || o.ttl != 0 || o.nx || o.xx {
			return false
		}
	}
	return true
}

// anyPrimary reports whether an op of ops must read the shard's primary
// (op.primary): the batch then skips the replicas.
func anyPrimary(ops []op) bool {
	for _, o := range ops {
		if o.primary {
			return true
		}
	}
	return false
}

func allGets(ops []op) bool {
	for _, o := range ops {
		if o.kind != opGet {
			return false
		}
	}
	return true
}

// setupFailed reports whether err, a reply error that go-redis's Pipelined
// returned, is the refusal of the connection's setup (AUTH or CLIENT
// SETNAME: WRONGPASS, NOPERM): no command of the pipeline (cmds, ttls; nil
// entries skipped) carries an error, since none ran. Their results are then
// empty, not answers: a SET read as OK was written nowhere.
func setupFailed(err error, cmds []redis.Cmder, ttls []*redis.IntCmd) bool {
	if err == nil || errors.Is(err, redis.Nil) {
		return false
	}
	for _, c := range cmds {
		if c != nil && c.Err() != nil {
			return false
		}
	}
	for _, c := range ttls {
		if c != nil && c.Err() != nil {
			return false
		}
	}
	return true
}

// isReplyError reports whether err is an error reply of the server (the
// command failed, the connection is fine).
func isReplyError(err error) bool {
	var re redis.Error
	return errors.As(err, &re) && !strings.HasPrefix(err.Error(), "redis: ")
}

func redisResult(cmd redis.Cmder) opResult {
	err := cmd.Err()
	switch c := cmd.(type) {
	case *redis.StringCmd:
		if errors.Is(err, redis.Nil) {
			return opResult{}
		}
		if err != nil {
			return opResult{err: err}
		}
		return opResult{value: []byte(c.Val()), found: true}
	case *redis.StatusCmd: // SET with NX/XX answers nil when refused
		if errors.Is(err, redis.Nil) {
			return opResult{}
		}
		return opResult{found: err == nil, err: err}
	case *redis.IntCmd:
		if err != nil {
			return opResult{err: err}
		}
		return opResult{found: c.Val() > 0, n: c.Val()}
	}
	return opResult{err: errors.New("ERR gateway: unexpected backend reply")}
}
