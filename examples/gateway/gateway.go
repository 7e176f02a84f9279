package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tierkit/tierkit/aimd"
	"github.com/tierkit/tierkit/batcher"
	"github.com/tierkit/tierkit/coalesce"
	"github.com/tierkit/tierkit/hashring"
	"github.com/tierkit/tierkit/shed"
)

// Gateway is the request path: tenant policy, admission (shed over an aimd
// limit), routing (hashring), coalescing, batching per tenant x shard, quota,
// and the backend. The RESP front end (server.go) calls it.
type Gateway struct {
	cfg     Config
	backend Backend
	ring    *hashring.Ring
	shardOf map[string]int // ring node id -> shard index

	tenants map[string]*tenant
	open    *tenant // the tenant of an unauthenticated connection, or nil

	limiter *aimd.Limiter
	shedder *shed.Shedder
	flights coalesce.Group[string, opResult]
	hot     *hotKeys                                  // hot-key linger of the coalesced fetches (hotkeys.go)
	batches *batcher.Batcher[group, []op, []opResult] // an item is one command's ops for one shard

	// Settings steered through control (see knobs.go). Apply funcs run one at
	// a time under the registry's lock; the hot path reads the atomics.
	coalesceOn atomic.Bool
	// linearizable makes flush drop a GET's fetch from the coalescing
	// group as it is sent (linearizable_reads).
	linearizable atomic.Bool
	timeout      atomic.Int64 // request timeout, ns
	mu           sync.Mutex   // protects the config copies below (control's Apply funcs)
	aimdCfg      aimd.Config
	shedCfg      shed.Config

	shardShare   atomic.Int64   // batches one shard may have in its backend call (health.go)
	shardFlights []atomic.Int64 // per shard: its batches in their backend call
	// per shard: its batches of GETs sent to its replicas (health.go), a
	// share of their own apart from its primary's
	replicaFlights []atomic.Int64
	draining       atomic.Bool // Close flushes every open batch, shares or not (as the batcher's cap)

	ctlMu   sync.RWMutex // protects closing; a /control change holds it for reading (gateControl)
	closing bool         // Close has begun: /control changes are refused

	// The drain, run by the first Close; the others wait on a channel
	// (durably blocked, as testing/synctest tells it, where a mutex is not).
	closeBegun atomic.Bool
	closeDone  chan struct{} // closed when the drain has ended
	closeErr   error         // its result, set before closeDone closes

	n       gatewayCounters
	health  []shardHealth // per backend shard (health.go)
	log     *slog.Logger
	metrics *metrics
	cache   *cacheTier // nil: no caching tier
	tracer  *tracer    // nil: request traces off
	workers *workers   // run a pipeline's commands concurrently
}

// batchConfig is the batcher's configuration.
type batchConfig = batcher.Config[[]op]

// group is a batch group: one tenant's ops to one shard.
type group struct {
	tenant string
	shard  int
}

type gatewayCounters struct {
	commands, errors, backendCalls, backendOps, shed, throttled, overloaded atomic.Uint64
	denied                                                                  atomic.Uint64
	// panics: those recovered off a connection's goroutine (panics.go).
	panics atomic.Uint64
	// authFailures: AUTH and HELLO AUTH refused (session.auth). One
	// count, not one per username: the names are the clients'.
	authFailures atomic.Uint64
	// uncommitted: the commands queued in a transaction whose EXEC did not
	// run them for its client (null, or an error: CROSSSLOT, admission).
	// They count in /control's commands, with their errors, but not in
	// commands, INFO's total_commands_processed, as Redis counts a queued
	// command only when EXEC runs it (allCommands).
	uncommitted atomic.Uint64
}

// allCommands is /control's commands: every command the gateway counted,
// those of a transaction that did not commit included.
func (n *gatewayCounters) allCommands() uint64 {
	return n.commands.Load() + n.uncommitted.Load()
}

// Errors of the request path, as RESP error strings (prefix first).
var (
	errShed       = errors.New("OVERLOADED request shed: the tier is over capacity or the tenant over its share; back off")
	errOverloaded = errors.New("OVERLOADED the gateway is at its admission limit; back off")
	errMemory     = errors.New("OVERLOADED the gateway is short of memory (its memory guard is tripped); back off")
	errThrottled  = errors.New("THROTTLED tenant is over its backend quota; slow down")
	errNoPerm     = errors.New("NOPERM this tenant may not run this command or touch this key")
)

func newGateway(cfg Config, backend Backend, log *slog.Logger) (*Gateway, error) {
	if log == nil {
		log = discardLogger
	}
	g := &Gateway{cfg: cfg, backend: backend, shardOf: map[string]int{}, tenants: map[string]*tenant{}, workers: newWorkers(),
		health: make([]shardHealth, backend.Shards()), shardFlights: make([]atomic.Int64, backend.Shards()),
		replicaFlights: make([]atomic.Int64, backend.Shards()), closeDone: make(chan struct{}), log: log}
	if b, ok := asRedis(backend); ok {
		b.log = log // its replicas' outages, logged as the shards' are (health.go)
	}
	if err := g.build(cfg); err != nil {
		g.closeParts() // what was built before the error; the backend stays the caller's
		return nil, err
	}
	return g, nil
}

// closeParts stops the components build started, in the order Close does.
func (g *Gateway) closeParts() {
	if g.batches != nil {
		_ = g.batches.Close()
	}
	if g.cache != nil {
		g.cache.Close()
	}
	if g.shedder != nil {
		g.shedder.Close()
	}
	if g.limiter != nil {
		g.limiter.Close()
	}
	_ = g.tracer.shutdown()
}

// build makes the gateway's components from cfg. An error names the
// configuration fields of the component that refused them.
func (g *Gateway) build(cfg Config) error {
	nodes := make([]hashring.Node, g.backend.Shards())
	for i := range nodes {
		id := "shard-" + strconv.Itoa(i)
		nodes[i] = hashring.Node{ID: id, Weight: 1}
		g.shardOf[id] = i
	}
	ring, err := hashring.New(hashring.Config{Slots: 1 << 12}, nodes)
	if err != nil {
		return fmt.Errorf("gateway: backend shards: %w", err)
	}
	g.ring = ring
	weights := map[string]int{}
	for _, tc := range cfg.Tenants {
		t := newTenant(tc)
		g.tenants[tc.Name] = t
		if tc.Weight > 0 {
			weights[tc.Name] = tc.Weight
		}
	}
	if t, ok := g.tenants["default"]; ok && t.cfg.Password == "" {
		g.open = t
	}
	g.aimdCfg = aimd.Config{Target: cfg.TargetCPU, Min: cfg.MinLimit, Max: cfg.MaxLimit}
	if g.limiter, err = aimd.New(g.aimdCfg); err != nil {
		return fmt.Errorf("gateway: target_cpu, min_limit, max_limit: %w", err)
	}
	g.shedCfg = shed.Config{Capacity: shed.CapacityFunc(g.limiter.Limit), Weights: weights,
		MaxQueue: cfg.MaxQueue, MaxQueueCost: int64(cfg.MaxQueue) * 16, QueueDeadline: time.Duration(cfg.QueueDeadline),
		StandingDeadline: time.Duration(cfg.QueueDeadline) / 4,
		// As the overload experiment runs it (examples/overload): tenants
		// under their share served in arrival order, and a flood's excess
		// shed on arrival rather than queued to expire.
		FreshArrivalOrder: true, ShedOnArrival: true,
		// Its tenants' per-bucket counts are counters of /metrics
		// (shedCollector): kept, not reclaimed when a tenant idles.
		IdleTimeout: shedKeepTenants}
	if g.shedder, err = shed.New(g.shedCfg); err != nil {
		return fmt.Errorf("gateway: max_queue, queue_deadline, tenants' weight: %w", err)
	}
	g.batches, err = batcher.New(batcher.Config[[]op]{
		MaxItems:    cfg.MaxBatch,
		Linger:      time.Duration(cfg.Linger),
		Policy:      cfg.flushPolicy(),
		MaxInFlight: cfg.MaxInFlight,
		// Data commands run without a request context (no timer per
		// command): the request timeout bounds their backend call here.
		FlushTimeout: time.Duration(cfg.RequestTimeout),
		Key: func(ops []op) (string, bool) {
			// Identical single GETs in one batch are sent once, but not a
			// GET that must read the primary (op.primary) with one that
			// may read a replica: the one kept decides where the batch
			// goes, and the other's flag went with the one dropped.
			if len(ops) != 1 || ops[0].kind != opGet || ops[0].primary {
				return "", false
			}
			return ops[0].key, true
		},
	}, g.flush)
	if err != nil {
		return fmt.Errorf("gateway: max_batch, linger, batch_policy, max_in_flight, request_timeout: %w", err)
	}
	if cfg.CacheCapacity > 0 {
		if err := g.startCacheTier(cfg); err != nil {
			return err
		}
	}
	g.setShardShare(g.batches.Config().MaxInFlight) // after the tier: its fills read no replica
	if g.tracer, err = newTracer(cfg); err != nil {
		return fmt.Errorf("gateway: otel: %w", err)
	}
	g.metrics = newMetrics(g)
	g.coalesceOn.Store(!cfg.NoCoalesce)
	g.linearizable.Store(cfg.LinearizableReads)
	g.hot = newHotKeys(time.Duration(cfg.HotLinger))
	g.timeout.Store(int64(cfg.RequestTimeout))
	return nil
}

// startCacheTier starts the caching tier on the backend's change feed:
// memkv's, or a Redis shard's keyspace notifications.
func (g *Gateway) startCacheTier(cfg Config) error {
	ct, err := newCacheTier(g.backend.Shards(), cfg.CacheCapacity, time.Duration(cfg.CacheStaleness))
	if err != nil {
		return fmt.Errorf("gateway: cache_capacity, cache_staleness: %w", err)
	}
	ct.log, ct.panics = g.log, &g.n.panics
	if b, ok := asMemkv(g.backend); ok {
		ct.followMemkv(b)
	} else if b, ok := asRedis(g.backend); ok {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := ct.followRedis(ctx, b); err != nil {
			ct.Close()
			return err
		}
		b.fillTTL.Store(true)
	} else {
		ct.Close()
		return errors.New("gateway: the caching tier needs the memkv or the redis backend")
	}
	g.cache = ct
	return nil
}

// flush sends one batch (one tenant, one shard) to the backend as one call and
// charges the tenant's quota one backend call. Each item carries the ops of
// one command for this shard; the call runs them all, in item order. The
// batch is the unit of the quota and of the backend call and op counters:
// a replica read the backend retries on the primary counts once. A
// batch whose shard already has its share of max_in_flight in the backend is
// answered OVERLOADED without a call (enterShard); a batch of GETs its
// replicas take counts in their share, not in its primary's.
func (g *Gateway) flush(ctx context.Context, grp group, reqs [][]op, out []batcher.Result[[]opResult]) (err error) {
	defer recoverTo(&err, &g.n.panics, g.log, "a backend call") // panics.go
	n := 0
	for _, r := range reqs {
		n += len(r)
	}
	flat := reqs[0]
	if len(reqs) > 1 {
		fp := fromPool[op](&opsPool, n)
		defer toPool(&opsPool, fp) // Backend.Do keeps no ops past its return
		for _, r := range reqs {
			*fp = append(*fp, r...)
		}
		flat = *fp
	}
	lin := g.linearizable.Load()
	flights := &g.shardFlights[grp.shard]
	if !lin && g.readsReplica(grp.shard, flat) { // linearizable GETs read the primary (below)
		flights = &g.replicaFlights[grp.shard]
	}
	if !g.enterShard(flights) {
		return errOverloaded
	}
	defer flights.Add(-1)
	// With linearizable_reads, a GET joins a coalesced fetch only until the
	// fetch is sent: the shard
	// may read the key at once, and a write applied after that read (by
	// another client of the shard, or by a SET through the gateway that has
	// not returned yet) may already have been read by others, so a GET that
	// began later must not get the older value. Joins made until now began
	// before the read. By default GETs also join a sent fetch: more
	// coalescing under a hot key, for reads up to one round trip old.
	if lin {
		for _, r := range reqs {
			if len(r) == 1 && r[0].kind == opGet {
				g.flights.Forget(r[0].key)
			}
		}
		// A replica may be behind a write its primary has already
		// acknowledged or served: linearizable GETs read the primary.
		if len(flat) > 0 {
			flat[0].primary = true // one primary op sends the batch there (anyPrimary)
		}
	}
	res := make([]opResult, n)
	g.n.backendCalls.Add(1)
	g.n.backendOps.Add(uint64(n))
	if t := g.tenants[grp.tenant]; t != nil {
		t.quota.charge(time.Now(), 1)
		t.backendCalls.Add(1)
	}
	if err := g.backend.Do(ctx, grp.shard, flat, res); err != nil {
		g.shardFailed(grp.shard, err, time.Now())
		return fmt.Errorf("ERR backend shard %d: %w", grp.shard, err)
	}
	if !res[0].replica { // a replica's answer tells nothing of the primary
		g.shardAnswered(grp.shard, time.Now)
	}
	if g.tracer != nil {
		for i := range res {
			res[i].batch = int32(n)
		}
	}
	off := 0
	for i, r := range reqs {
		if lin && len(r) == 1 && r[0].kind == opGet {
			res[off].linear = true
		}
		out[i] = batcher.Result[[]opResult]{Resp: res[off : off+len(r) : off+len(r)]}
		off += len(r)
	}
	return nil
}

// submit sends ops (all for grp's shard) as one batch item and waits.
func (g *Gateway) submit(ctx context.Context, grp group, ops []op) ([]opResult, error) {
	return g.settled(g.batches.Do(ctx, grp, ops))
}

// settled is a batch item's outcome as the gateway reports it: the batcher's
// overload is answered with the gateway's error (counted per command where
// replies are written: an item may carry several commands, or a part of one).
func (g *Gateway) settled(res []opResult, err error) ([]opResult, error) {
	if errors.Is(err, batcher.ErrOverloaded) {
		err = errOverloaded
	}
	return res, err
}

// submitParts sends each shard's part of one command (or of one plain run)
// as a batch item and waits for all of them: the parts for all shards but
// the last are started without waiting, the last is sent as submit sends it
// (on this goroutine when it closes its batch), then the others are waited
// for. They travel at the same time, with no goroutine per shard.
// pend is scratch space (pend[i] is order[i]'s part); part(sh) returns shard
// sh's ops and where its outcome goes.
func (g *Gateway) submitParts(ctx context.Context, tenant string, order []int, pend []pendingPart, part func(sh int) ([]op, *[]opResult, *error)) []pendingPart {
	pend = pend[:0]
	for _, sh := range order[:len(order)-1] {
		ops, _, _ := part(sh)
		pend = append(pend, g.batches.Start(ctx, group{tenant: tenant, shard: sh}, ops))
	}
	last := order[len(order)-1]
	ops, res, err := part(last)
	*res, *err = g.submit(ctx, group{tenant: tenant, shard: last}, ops)
	for i := range pend {
		_, res, err := part(order[i])
		*res, *err = g.settled(pend[i].Wait())
		pend[i] = pendingPart{} // the Pending is spent: drop its batch
	}
	return pend[:0]
}

// pendingPart is a shard's part started by submitParts.
type pendingPart = batcher.Pending[group, []op, []opResult]

// submitOne sends one op.
func (g *Gateway) submitOne(ctx context.Context, grp group, o op) (opResult, error) {
	res, err := g.submit(ctx, grp, []op{o})
	if err != nil {
		return opResult{}, err
	}
	return res[0], res[0].err
}

// shard routes a key. A hash tag routes by the part between the first { and
// the next }, as Redis Cluster does, so related keys can share a shard.
func (g *Gateway) shard(key string) int {
	if i := strings.IndexByte(key, '{'); i >= 0 {
		if j := strings.IndexByte(key[i+1:], '}'); j > 0 {
			key = key[i+1 : i+1+j]
		}
	}
	id, err := g.ring.Lookup(key)
	if err != nil {
		return 0 // the ring is never empty
	}
	return g.shardOf[id]
}

// admitAt runs the admission path for one command of cost, at a time the
// caller already read (the request's start, for the quota: the clock is
// read once more per request, or per pipeline run, when shed admits it, for
// the limiter): quota, shed (per tenant x priority, capacity from the aimd
// limit), then the aimd limiter itself (memory guard). On success the caller calls done(ok) and then
// release when the command is done (two funcs rather than one closure: no
// allocation per command).
// The command's shed priority is t's for spec (command_priorities).
func (g *Gateway) admitAt(ctx context.Context, t *tenant, spec *cmdSpec, cost int64, now time.Time) (done func(ok bool), release func(), err error) {
	return g.admitRun(ctx, t, int(t.prio[spec.idx]), cost, 1, now)
}

// admitRun admits n commands of total cost as one: a pipelined plain run
// (runPlain) is admitted, or refused, as a whole, with one pass through the
// quota, shed and the limiter instead of one per command (at pipeline 16
// those passes, each a lock, took 12% of the gateway's CPU). A refusal counts
// n commands throttled or shed.
// A run is queued at prio, the highest shed priority among its commands
// (runPrio; an EXEC's: admitExec): a high-priority command must not wait in
// the low-priority queue, behind the tenant's background traffic, because a
// low-priority command was pipelined (or queued in MULTI) with it.
func (g *Gateway) admitRun(ctx context.Context, t *tenant, prio int, cost int64, n int, now time.Time) (done func(ok bool), release func(), err error) {
	if !t.quota.allow(now) {
		g.n.throttled.Add(uint64(n))
		t.throttled.Add(uint64(n))
		return nil, nil, errThrottled
	}
	release, err = g.shedder.Acquire(ctx, t.cfg.Name, prio, cost)
	if err != nil {
		// A request whose own timer ran out in the queue (EXEC and WATCH
		// run whole under request_timeout) was not admitted either:
		// nothing of it ran, so it is shed and counted as shed (it once
		// answered "ERR context deadline exceeded", the error of a call
		// of unknown outcome, counted in no shed count).
		if errors.Is(err, shed.ErrShed) || (ctx.Err() != nil && errors.Is(err, ctx.Err())) {
			g.n.shed.Add(uint64(n))
			t.shed.Add(uint64(n))
			return nil, nil, errShed
		}
		return nil, nil, err
	}
	// The limiter takes its control step at the time it is given, and
	// samples the CPU there: a request that waited in shed's queue (up to
	// queue_deadline, longer than the control period) reaches it at the time
	// it was admitted, not at its arrival, which paired the CPU used until
	// now with a period that ended back then (a load read too high, then
	// too low). The one clock read of admission, where shed's wait ends.
	done, err = g.limiter.TryAcquireAt(time.Now())
	if err != nil {
		release()
		if errors.Is(err, aimd.ErrMemory) {
			// Said apart from the limit: it holds whatever the limit is.
			return nil, nil, errMemory // counted as overloaded, where the reply is written
		}
		return nil, nil, errOverloaded // counted where the reply is written
	}
	return done, release, nil
}

// Close drains the request path: pending batches are flushed and every flush
// has returned when it returns.
// From its start, /control changes are refused (gateControl); one being
// applied finishes first.
// Close may be called more than once, and concurrently: the gateway is
// drained and its parts closed once (a second drain closed the worker pool
// again and panicked), and every call waits for that drain and returns its
// result.
func (g *Gateway) Close() error {
	if !g.closeBegun.CompareAndSwap(false, true) {
		<-g.closeDone
		return g.closeErr
	}
	defer close(g.closeDone)
	g.closeErr = g.close()
	return g.closeErr
}

// close is Close's drain, run once.
func (g *Gateway) close() error {
	g.ctlMu.Lock() // waits for a /control change being applied
	g.closing = true
	g.ctlMu.Unlock()
	g.workers.close() // the server has drained: no command runs any more
	g.draining.Store(true)
	err := g.batches.Close()
	if g.cache != nil {
		g.cache.Close()
	}
	g.shedder.Close()
	g.limiter.Close()
	return errors.Join(err, g.backend.Close(), g.tracer.shutdown())
}
