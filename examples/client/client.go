package client

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tierkit/tierkit/rollout"
)

// Client is the thin client: per request it decides gateway or direct
// (rollout), the serving region (failover), the host (a weighted ring per
// region, or the shard ring in direct mode), and sends the command over a
// small sticky pool of connections to that host, retrying once on the next
// host of the key's replica order when the host itself failed.
//
// It is safe for concurrent use. Routes and Config are swapped atomically
// (Client.SetRoutes, Client.SetConfig) while requests run: a request routes
// on the snapshot it loaded. A Client must not be copied after first use;
// call Client.Close to release its connections.
type Client struct {
	cfg    atomic.Pointer[Config]
	routes atomic.Pointer[compiled]

	mu    sync.Mutex       // protects hosts; Close sets closed under it
	hosts map[string]*host // address -> pool and counters
	// closed is set by Close: requests check it before routing and host
	// checks it under mu before opening a pool.
	closed atomic.Bool
	// pools is a read-only copy of hosts, replaced under mu whenever hosts
	// changes (rarely: a host's first request, a publication that drops hosts),
	// so the request path reads it with one atomic load and takes no lock.
	pools atomic.Pointer[map[string]*host]

	gateway, direct, retries, failures, skipped, swaps atomic.Uint64
	// ejectMax is the latest ejection deadline of any host (c.now), 0 if none
	// was ever ejected: while it is past, routing checks no host.
	ejectMax atomic.Int64
	// epoch is when the client was made: deadlines are monotonic nanoseconds
	// since it (c.now), so a wall clock stepped back does not keep an ejected
	// host out for the step's length.
	epoch time.Time
}

// now is the monotonic time since the client was made, in ns, at least 1.
func (c *Client) now() int64 { return int64(time.Since(c.epoch)) + 1 }

// host is one address's sticky pool, its ejection deadline and its counter.
type host struct {
	addr      string
	rc        *redis.Client
	downUntil atomic.Int64 // Client.now; skipped by new requests until then
	requests  atomic.Uint64
	inFlight  atomic.Int64 // attempts sent here and not yet answered
}

// New returns a Client for cfg, or an error wrapping ErrInvalidConfig. It
// starts no goroutine and opens no connection: pools are dialed on first use.
// Requests fail with ErrNoRoutes until Client.SetRoutes.
func New(cfg Config) (*Client, error) {
	c := &Client{hosts: map[string]*host{}, epoch: time.Now()}
	c.pools.Store(&map[string]*host{})
	if err := c.SetConfig(cfg); err != nil {
		return nil, err
	}
	return c, nil
}

// SetConfig validates cfg and swaps it in atomically; on error the previous
// Config stays in force. Service, Region, units and EjectFor apply to the next
// request; PoolSize, DialTimeout and credentials apply to pools opened later
// (a host's pool is opened on its first request and kept while the host is in
// the routes).
func (c *Client) SetConfig(cfg Config) error {
	if err := cfg.validate(); err != nil {
		return err
	}
	cfg = cfg.withDefaults()
	c.cfg.Store(&cfg)
	return nil
}

// Config returns the Config in force, with defaults filled in.
func (c *Client) Config() Config { return *c.cfg.Load() }

// SetRoutes publishes r: requests that start afterwards route on it, requests
// in flight finish on the routes they loaded. Pools of hosts that appear in
// no path of r are closed (a request still using one sees a closed pool and
// retries on its next host). On error (wrapping ErrInvalidRoutes) the previous
// routes stay in force.
func (c *Client) SetRoutes(r Routes) error {
	cr, err := compile(r)
	if err != nil {
		return err
	}
	// The swap and the pruning happen under one lock, so that concurrent calls
	// prune by the routes that end up in force: apart, one call could close the
	// pools of hosts that the other call's routes, published after it, use.
	var stale []*host
	c.mu.Lock()
	c.routes.Store(cr)
	c.swaps.Add(1)
	for addr, h := range c.hosts {
		if !cr.hosts[addr] {
			stale = append(stale, h)
			delete(c.hosts, addr)
		}
	}
	c.publishLocked()
	c.mu.Unlock()
	for _, h := range stale {
		_ = h.rc.Close()
	}
	return nil
}

// Routes returns the routes in force and whether any were published. Its map
// and slices are copies: changing them changes nothing in force.
func (c *Client) Routes() (Routes, bool) {
	r := c.routes.Load()
	if r == nil {
		return Routes{}, false
	}
	return r.Routes.clone(), true
}

// Route returns where a request for key goes now, without sending anything:
// the decision every request makes. It returns ErrClosed, ErrNoRoutes or
// ErrNoHost.
func (c *Client) Route(key string) (Target, error) {
	if c.closed.Load() {
		return Target{}, ErrClosed
	}
	r := c.routes.Load()
	if r == nil {
		return Target{}, ErrNoRoutes
	}
	return c.route(r, c.cfg.Load(), key, false)
}

// route decides key's target; count says whether a skipped owner is
// counted in Stats.Skipped (requests do, Client.Route does not).
func (c *Client) route(r *compiled, cfg *Config, key string, count bool) (Target, error) {
	d := rollout.Decision{Reason: rollout.ReasonNoRule}
	if r.Rollout != nil {
		d = r.Rollout.Decide(rollout.Query{Service: cfg.Service, Key: key, Region: cfg.Region, Unit: cfg.RolloutUnit})
	}
	if !d.Use {
		if r.direct == nil {
			return Target{Path: PathDirect, Reason: d.Reason}, ErrNoHost
		}
		id, err := r.direct.Lookup(routingKey(key))
		if err != nil {
			return Target{Path: PathDirect, Reason: d.Reason}, ErrNoHost
		}
		// The shard is the key's only owner: a retry reconnects to it.
		addr := r.shardOf[id]
		return Target{Path: PathDirect, Host: addr, Next: addr, Reason: d.Reason}, nil
	}
	h := gatewayHash(key)
	region := pickRegion(r.Failover, cfg, h)
	t := Target{Path: PathGateway, Region: region, Reason: d.Reason}
	ring := r.Gateways[region]
	if ring == nil {
		return t, ErrNoHost
	}
	var buf [4]string
	cands := ring.AppendLookupNHash(buf[:0], h, 2) // owner and retry host: the common case
	var now int64
	if c.ejectMax.Load() != 0 { // some host was ejected once: read the clock
		now = c.now()
	}
	first, second := c.usable(r, cands, now)
	// A draw shorter than asked holds every host that owns a slot: members
	// too light for one are never replicas, so ring.Len() alone does not say
	// whether a longer draw can find more.
	if (first != 0 || second < 0) && len(cands) == 2 && ring.Len() > 2 {
		// The owner or its successor is out: look further down the replica order.
		cands = ring.AppendLookupNHash(buf[:0], h, len(buf))
		first, second = c.usable(r, cands, now)
		if (first < 0 || second < 0) && len(cands) == len(buf) && ring.Len() > len(buf) {
			// More hosts are out than buf holds: walk the whole replica order
			// (this allocates, but only while that many hosts are out).
			cands = ring.AppendLookupNHash(nil, h, ring.Len())
			first, second = c.usable(r, cands, now)
		}
	}
	switch {
	case first < 0: // every candidate is out: try the owner anyway
		first, second = 0, 1
	case first > 0 && count:
		c.skipped.Add(1)
	}
	t.Host = cands[first]
	if second >= 0 && second < len(cands) {
		t.Next = cands[second]
	}
	return t, nil
}

// usable returns the indexes of the first two candidates that are neither
// draining nor ejected (-1 when missing).
func (c *Client) usable(r *compiled, cands []string, now int64) (first, second int) {
	if len(r.draining) == 0 && c.ejectMax.Load() <= now {
		second = -1 // nothing is out: the fast path
		if len(cands) > 1 {
			second = 1
		}
		return 0, second
	}
	first, second = -1, -1
	for i, h := range cands {
		if r.draining[h] || c.ejected(h, now) {
			continue
		}
		if first < 0 {
			first = i
		} else {
			second = i
			break
		}
	}
	return first, second
}

// ejected reports whether host h failed recently enough to be skipped.
func (c *Client) ejected(addr string, now int64) bool {
	h := (*c.pools.Load())[addr]
	return h != nil && h.downUntil.Load() > now
}

// errDropped is host's error for a host that left the routes after the
// request was routed. It wraps redis.ErrClosed, so the request goes on to its
// next host as from a pool SetRoutes closed; as a retry's error it says
// nothing of the request's hosts, so do returns the first attempt's instead
// (not "redis: client is closed" from a client that is open).
var errDropped = fmt.Errorf("client: host left the routes: %w", redis.ErrClosed)

// host returns addr's pool, opening it on first use.
func (c *Client) host(addr string, path Path, cfg *Config) (*host, error) {
	if h := (*c.pools.Load())[addr]; h != nil {
		return h, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed.Load() {
		return nil, ErrClosed
	}
	if h := c.hosts[addr]; h != nil {
		return h, nil
	}
	if r := c.routes.Load(); r != nil && !r.hosts[addr] {
		// SetRoutes dropped addr after the request routed: no publication
		// would close a pool opened now. Fail as a closed pool does, so the
		// request goes on to its next host.
		return nil, errDropped
	}
	opt := &redis.Options{
		Addr:                  addr,
		PoolSize:              cfg.PoolSize,
		MaxActiveConns:        cfg.PoolSize, // the pool stays small: callers wait for a connection within ctx
		DialTimeout:           cfg.DialTimeout,
		DialerRetries:         1, // a refused dial fails at once: the next host is the retry
		DialerRetryTimeout:    time.Millisecond,
		MaxRetries:            -1, // the client retries across hosts itself
		ContextTimeoutEnabled: true,
		DisableIdentity:       true,
		Protocol:              2,
	}
	if path == PathGateway {
		opt.Username, opt.Password = cfg.Username, cfg.Password
	}
	h := &host{addr: addr, rc: redis.NewClient(opt)}
	c.hosts[addr] = h
	c.publishLocked()
	return h, nil
}

// publishLocked replaces the lock-free copy of c.hosts. Call with mu held.
func (c *Client) publishLocked() {
	m := make(map[string]*host, len(c.hosts))
	for addr, h := range c.hosts {
		m[addr] = h
	}
	c.pools.Store(&m)
}

// do sends one command for keys (one key, or a group routed together on r)
// along t, and once more to its retry host (retryHost) if the first host
// failed and ctx allows.
func (c *Client) do(ctx context.Context, r *compiled, cfg *Config, t Target, keys []string, fn func(context.Context, *redis.Client) error) error {
	if t.Path == PathGateway {
		c.gateway.Add(1)
	} else {
		c.direct.Add(1)
	}
	err := c.attempt(ctx, t.Host, t.Path, cfg, fn)
	// A closed client has no host to retry on: Close, not the host, broke
	// the request.
	if retryable(ctx, err) && t.Next != "" && !c.closed.Load() {
		first := err
		err = c.attempt(ctx, c.retryHost(r, cfg, t, keys), t.Path, cfg, fn)
		if errors.Is(err, errDropped) { // nothing sent: the first host's error is the news
			err = first
		} else {
			c.retries.Add(1)
		}
	}
	if err != nil && !errors.Is(err, redis.Nil) {
		c.failures.Add(1)
		err = c.closedErr(err)
	}
	return err
}

// retryHost returns the host the retry of a request along t for keys goes
// to: t.Next, unless that host has been ejected since the keys were routed
// (another request found it failed while the first attempt ran, which a hung
// host's read timeout or a dial timeout makes long) and routing the keys
// again on r, the routes they were routed on, sends all of them to one host
// neither ejected nor t.Host, as a request routed now would be sent.
func (c *Client) retryHost(r *compiled, cfg *Config, t Target, keys []string) string {
	if t.Path != PathGateway || c.ejectMax.Load() == 0 {
		return t.Next
	}
	now := c.now()
	if !c.ejected(t.Next, now) {
		return t.Next
	}
	next := ""
	for _, k := range keys {
		nt, err := c.route(r, cfg, k, false)
		if err != nil {
			return t.Next
		}
		h := nt.Host
		if h == t.Host { // t.Host is not ejected (a not-ready reply): its successor
			h = nt.Next
		}
		if h == "" || next != "" && h != next || c.ejected(h, now) {
			return t.Next
		}
		next = h
	}
	if next == "" {
		return t.Next
	}
	return next
}

// closedErr returns err wrapped with ErrClosed if it is a connection-level
// error and c is closed: Close broke the request's connection or pool, so
// the caller can tell that apart from a host failing. Reply errors are the
// host's answer and stay as they are.
func (c *Client) closedErr(err error) error {
	var re redis.Error
	if !c.closed.Load() || errors.Is(err, ErrClosed) || errors.As(err, &re) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrClosed, err)
}

func (c *Client) attempt(ctx context.Context, addr string, path Path, cfg *Config, fn func(context.Context, *redis.Client) error) error {
	h, err := c.host(addr, path, cfg)
	if err != nil {
		return err
	}
	h.requests.Add(1)
	err = h.send(ctx, fn)
	if hostFailed(ctx, err) {
		now := c.now()
		until := now + int64(cfg.EjectFor)
		if until < now { // past 292 years: ejected for good, not wrapped into the past
			until = math.MaxInt64
		}
		h.downUntil.Store(until)
		for {
			m := c.ejectMax.Load()
			if m >= until || c.ejectMax.CompareAndSwap(m, until) {
				break
			}
		}
	}
	return err
}

// send runs fn on h's pool, counted in h.inFlight until it returns or
// panics: a panic the caller recovers from (a nil ctx, which go-redis
// dereferences; an HTTP server recovers a handler's panic) must not leave
// the attempt counted for the client's life.
func (h *host) send(ctx context.Context, fn func(context.Context, *redis.Client) error) error {
	h.inFlight.Add(1)
	defer h.inFlight.Add(-1)
	return fn(ctx, h.rc)
}

// Close closes every pool. Requests in flight fail with an error wrapping
// ErrClosed (unless the host's reply arrived first); later requests and
// Client.Route return ErrClosed before routing. Client.SetRoutes and
// Client.SetConfig still validate and store their argument, to no effect.
// Close is idempotent.
func (c *Client) Close() error {
	c.mu.Lock()
	hosts := c.hosts
	c.hosts = map[string]*host{}
	c.closed.Store(true)
	c.publishLocked()
	c.mu.Unlock()
	var errs []error
	for _, h := range hosts {
		errs = append(errs, h.rc.Close())
	}
	return errors.Join(errs...)
}
