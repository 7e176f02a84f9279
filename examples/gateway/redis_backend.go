package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
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

// redisAuth is what every connection to a shard or replica opens with:
// the login (BackendConfig's username and password; none without a
// password), never logged, and the bound on the dial (dial_timeout).
type redisAuth struct {
	user, password string
	// dialTimeout bounds each connection's dial, and with rueidis its
	// login and setup (dialFast); 0 is defaultDialTimeout.
	dialTimeout time.Duration
}

// defaultDialTimeout is backend.dial_timeout's default: a shard that is
// down fails its keys that soon.
const defaultDialTimeout = 500 * time.Millisecond

// dial returns a's dial timeout.
func (a redisAuth) dial() time.Duration {
	if a.dialTimeout > 0 {
		return a.dialTimeout
	}
	return defaultDialTimeout
}

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
		MaxRetries:       -1,          // a batch fails fast; the client decides to retry
		DialTimeout:      auth.dial(), // a shard that is down fails its keys promptly
		DialerRetries:    1,           // after one dial timeout: go-redis's 5 attempts 100 ms apart took 2.9 s
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
		kp := fromPool[string](&keysPool, len(ops))
		defer toPool(&keysPool, kp) // the clients copy the keys into their commands
		*kp = (*kp)[:len(ops)]
		keys := *kp
		for i, o := range ops {
			keys[i] = o.key
		}
		fill := b.fillTTL.Load() // GETs are the caching tier's fills
		if fill && b.volatile[shard].isSet() {
			return p.getsWithTTL(ctx, keys, out)
		}
		if b.readsReplica(shard, ops) {
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

func allPlainSets(ops []op) bool {
	for _, o := range ops {
		if o.kind != opSet || o.ttl != 0 || o.nx || o.xx {
			return false
		}
	}
	return true
}

// readsReplica reports whether a batch of ops for shard goes to one of its
// replicas, unless none is readable (pickReplica): GETs alone, none of
// which must read the primary, on a shard with replicas, with the caching
// tier off (its fills read the primary). The gateway counts such a batch
// in the replicas' share of max_in_flight, not the primary's (health.go).
func (b *redisBackend) readsReplica(shard int, ops []op) bool {
	return len(b.dataReplicas[shard]) > 0 && !b.fillTTL.Load() && allGets(ops) && !anyPrimary(ops)
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
