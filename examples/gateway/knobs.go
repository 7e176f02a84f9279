package main

import (
	"time"

	"github.com/tierkit/tierkit/batcher"
	"github.com/tierkit/tierkit/cache"

	"github.com/tierkit/tierkit/control"
)

// The knobs' bounds. The settings they steer are checked against them at
// start too (Config.checkRanges): a knob refuses to register with a value
// outside its bounds.
const (
	minLinger, maxLinger                 = time.Microsecond, 50 * time.Millisecond
	minRequestTimeout, maxRequestTimeout = time.Millisecond, time.Minute
	minQueueDeadline, maxQueueDeadline   = time.Millisecond, 10 * time.Second
	minStaleness, maxStaleness           = time.Millisecond, time.Hour
	minTargetCPU                         = 0.05
	maxKnobBatch                         = 4096    // batcher.max_items
	maxKnobCount                         = 1 << 20 // batcher.max_in_flight, aimd.max, shed.max_queue
	maxKnobCapacity                      = 1 << 26 // cache.capacity
	maxKnobQuota                         = 1e9     // quota.<tenant>.rate and .burst
	maxProcs                             = 1024    // procs (GOMAXPROCS), a setting, not a knob
)

// registerKnobs exposes the composed components' runtime tunables and state
// on a control.Registry, so an operator or an agent can steer the gateway
// through /control without a restart. Every knob is registered even when an
// earlier one fails; the first error is returned.
func (g *Gateway) registerKnobs(reg *control.Registry) error {
	errs := g.registerBatcherKnobs(reg)
	errs = append(errs, g.registerGatewayKnobs(reg)...)
	errs = append(errs, g.registerAIMDKnobs(reg)...)
	errs = append(errs, g.registerShedKnobs(reg)...)
	errs = append(errs, g.registerCacheAndQuotaKnobs(reg)...)
	errs = append(errs, g.registerChaos(reg)...)
	errs = append(errs, g.registerStates(reg)...)
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// registerBatcherKnobs adds the batcher's knobs: linger, flush policy, batch
// size and batches in flight.
func (g *Gateway) registerBatcherKnobs(reg *control.Registry) []error {
	bcfg := g.batches.Config()
	return []error{
		reg.RegisterDuration(control.DurationKnob{Name: "batcher.linger", Doc: "how long a batch waits for more ops after its first",
			Min: minLinger, Max: maxLinger, Value: bcfg.Linger,
			Apply: func(v time.Duration) error { return g.setBatchConfig(func(c *batchConfig) { c.Linger = v }) }}),
		reg.RegisterBool(control.BoolKnob{Name: "batcher.natural", Doc: "natural batching: send at once when the group has no batch in flight (off: every batch waits out the linger)",
			Value: bcfg.Policy == batcher.FlushNatural, Apply: func(v bool) error {
				return g.setBatchConfig(func(c *batchConfig) {
					c.Policy = batcher.FlushOnLinger
					if v {
						c.Policy = batcher.FlushNatural
					}
				})
			}}),
		reg.RegisterInt(control.IntKnob{Name: "batcher.max_items", Doc: "items (one command's ops for one shard) per backend call", Min: 1, Max: maxKnobBatch,
			Value: int64(bcfg.MaxItems), Apply: func(v int64) error { return g.setBatchConfig(func(c *batchConfig) { c.MaxItems = int(v) }) }}),
		reg.RegisterInt(control.IntKnob{Name: "batcher.max_in_flight", Doc: "batches in the backend at once (a shard at most this / shares: one per shard, one more per shard with replicas, none with the caching tier); beyond, OVERLOADED",
			Min: 1, Max: maxKnobCount, Value: int64(bcfg.MaxInFlight),
			Apply: func(v int64) error {
				if err := g.setBatchConfig(func(c *batchConfig) { c.MaxInFlight = int(v) }); err != nil {
					return err
				}
				g.setShardShare(int(v))
				return nil
			}}),
	}
}

// registerGatewayKnobs adds the gateway's own knobs: read coalescing, the
// hot-key linger and the request timeout.
func (g *Gateway) registerGatewayKnobs(reg *control.Registry) []error {
	return []error{
		reg.RegisterBool(control.BoolKnob{Name: "gateway.coalesce", Doc: "identical in-flight GETs share one fetch (with the caching tier they share its fill whatever this says)",
			Value: g.coalesceOn.Load(), Apply: func(v bool) error { g.coalesceOn.Store(v); return nil }}),
		reg.RegisterBool(control.BoolKnob{Name: "gateway.linearizable_reads", Doc: "a GET joins a coalesced fetch only until it is sent (no read older than a write another client already saw; with replicas, GETs read the primary; less coalescing; not with the caching tier)",
			Value: g.linearizable.Load(), Apply: func(v bool) error { g.linearizable.Store(v); return nil }}),
		reg.RegisterDuration(control.DurationKnob{Name: "gateway.hot_linger", Doc: "the longest the fetch of a key that many GETs read at once waits for its expected readers (0: off; not with the caching tier)",
			Min: 0, Max: maxHotLinger, Value: time.Duration(g.hot.linger.Load()),
			Apply: func(v time.Duration) error { g.hot.setLinger(v); return nil }}),
		reg.RegisterDuration(control.DurationKnob{Name: "gateway.request_timeout", Doc: "bound of a data command's backend call (the batcher's flush timeout; not of its admission queue, linger or hot-key wait) and deadline of the other commands and of reads after WATCH",
			Min: minRequestTimeout, Max: maxRequestTimeout, Value: time.Duration(g.timeout.Load()),
			Apply: func(v time.Duration) error {
				// Data commands have no request context: the flush timeout
				// bounds their backend call.
				if err := g.setBatchConfig(func(c *batchConfig) { c.FlushTimeout = v }); err != nil {
					return err
				}
				g.timeout.Store(int64(v))
				return nil
			}}),
	}
}

// registerAIMDKnobs adds the admission limiter's knobs: its CPU target and
// its largest limit. The largest limit's lower bound is min_limit (aimd's
// Min, at least 1), which the limiter refuses a Max below: a bound of 1 let
// a dry run approve, and a request apply (and then undo) its other knobs
// before, a value that then failed as apply_failed.
func (g *Gateway) registerAIMDKnobs(reg *control.Registry) []error {
	return []error{
		reg.RegisterFloat(control.FloatKnob{Name: "aimd.target", Doc: "CPU load the admission limit holds", Min: minTargetCPU, Max: 1,
			Value: g.aimdCfg.Target, MinInterval: time.Second,
			Apply: func(v float64) error { return g.setAIMDConfig(func() { g.aimdCfg.Target = v }) }}),
		reg.RegisterInt(control.IntKnob{Name: "aimd.max", Doc: "largest admission limit (concurrent commands), at least min_limit",
			Min: int64(max(g.aimdCfg.Min, 1)), Max: maxKnobCount,
			Value: int64(g.aimdCfg.Max), Apply: func(v int64) error { return g.setAIMDConfig(func() { g.aimdCfg.Max = int(v) }) }}),
	}
}

// registerShedKnobs adds the shedder's knobs: queue length, queue deadline,
// shedding on arrival and the order tenants under their share are served in.
func (g *Gateway) registerShedKnobs(reg *control.Registry) []error {
	return []error{
		reg.RegisterInt(control.IntKnob{Name: "shed.max_queue", Doc: "requests queued per tenant x priority before shedding",
			Min: 1, Max: maxKnobCount, Value: int64(g.shedCfg.MaxQueue),
			Apply: func(v int64) error {
				return g.setShedConfig(func() { g.shedCfg.MaxQueue, g.shedCfg.MaxQueueCost = int(v), v*16 })
			}}),
		reg.RegisterDuration(control.DurationKnob{Name: "shed.queue_deadline", Doc: "longest queue wait before shedding",
			Min: minQueueDeadline, Max: maxQueueDeadline, Value: g.shedCfg.QueueDeadline,
			Apply: func(v time.Duration) error {
				return g.setShedConfig(func() { g.shedCfg.QueueDeadline, g.shedCfg.StandingDeadline = v, v/4 })
			}}),
		reg.RegisterBool(control.BoolKnob{Name: "shed.on_arrival", Doc: "shed a flooding tenant's request on arrival when its standing queue would not drain before the request's deadline (off: it waits and expires)",
			Value: g.shedCfg.ShedOnArrival,
			Apply: func(v bool) error { return g.setShedConfig(func() { g.shedCfg.ShedOnArrival = v }) }}),
		reg.RegisterBool(control.BoolKnob{Name: "shed.arrival_order", Doc: "serve tenants under their share in arrival order (off: one quantum per round-robin visit)",
			Value: g.shedCfg.FreshArrivalOrder,
			Apply: func(v bool) error { return g.setShedConfig(func() { g.shedCfg.FreshArrivalOrder = v }) }}),
	}
}

// setBatchConfig applies f to a copy of the batcher's configuration and sets
// it; the batcher refuses an invalid one and keeps its own.
func (g *Gateway) setBatchConfig(f func(c *batchConfig)) error {
	c := g.batches.Config()
	f(&c)
	return g.batches.SetConfig(c)
}

// setAIMDConfig runs f, which changes g.aimdCfg, under g.mu and sets the
// result on the limiter; if the limiter refuses it, g.aimdCfg is restored.
func (g *Gateway) setAIMDConfig(f func()) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	old := g.aimdCfg
	f()
	if err := g.limiter.SetConfig(g.aimdCfg); err != nil {
		g.aimdCfg = old
		return err
	}
	return nil
}

// setShedConfig runs f, which changes g.shedCfg, under g.mu and sets the
// result on the shedder; if the shedder refuses it, g.shedCfg is restored.
func (g *Gateway) setShedConfig(f func()) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	old := g.shedCfg
	f()
	if err := g.shedder.SetConfig(g.shedCfg); err != nil {
		g.shedCfg = old
		return err
	}
	return nil
}

// registerCacheAndQuotaKnobs adds the caching tier's knobs and each tenant's
// quota knobs.
func (g *Gateway) registerCacheAndQuotaKnobs(reg *control.Registry) []error {
	var errs []error
	if ct := g.cache; ct != nil {
		cc := ct.config()
		errs = append(errs,
			reg.RegisterDuration(control.DurationKnob{Name: "cache.max_staleness", Doc: "bounded staleness of cache hits",
				Min: minStaleness, Max: maxStaleness, Value: cc.MaxStaleness,
				Apply: func(v time.Duration) error {
					return ct.setConfig(func(c *cache.Config[string]) { c.MaxStaleness = v })
				}}),
			reg.RegisterInt(control.IntKnob{Name: "cache.capacity", Doc: "cache entries per shard", Min: 1, Max: maxKnobCapacity,
				Value: int64(cc.Capacity), Apply: func(v int64) error {
					return ct.setConfig(func(c *cache.Config[string]) { c.Capacity = int(v) })
				}}),
		)
	}
	for _, t := range g.tenants {
		rate, burst, _ := t.quota.get(time.Now())
		errs = append(errs,
			reg.RegisterFloat(control.FloatKnob{Name: "quota." + t.cfg.Name + ".rate", Doc: "backend calls per second (0: unlimited); the burst stays as it is",
				Min: 0, Max: maxKnobQuota, Value: rate, Apply: func(v float64) error {
					t.quota.setRate(time.Now(), v)
					return nil
				}}),
			reg.RegisterFloat(control.FloatKnob{Name: "quota." + t.cfg.Name + ".burst", Doc: "backend calls a tenant may make back to back",
				Min: 1, Max: maxKnobQuota, Value: burst, Apply: func(v float64) error {
					t.quota.setBurst(time.Now(), v)
					return nil
				}}),
		)
	}
	return errs
}

// registerStates adds the components' state snapshots.
func (g *Gateway) registerStates(reg *control.Registry) []error {
	return []error{
		reg.RegisterState("batcher", func() any { return g.batches.Stats() }),
		reg.RegisterState("coalesce", func() any { return g.flights.Stats() }),
		reg.RegisterState("aimd", func() any { return g.limiter.Stats() }),
		reg.RegisterState("shed", func() any { return g.shedder.Stats() }),
		reg.RegisterState("ring", func() any { return g.ring.Stats() }),
		reg.RegisterState("gateway", func() any { return g.counters() }),
		reg.RegisterState("host", func() any { return g.hostSnapshot() }),
		reg.RegisterState("cache", func() any {
			if g.cache == nil {
				return nil
			}
			return g.cache.stats()
		}),
	}
}

// counters snapshots the gateway's own counters for /control.
func (g *Gateway) counters() map[string]uint64 {
	return map[string]uint64{
		"commands": g.n.allCommands(), "errors": g.n.errors.Load(),
		"backend_calls": g.n.backendCalls.Load(), "backend_ops": g.n.backendOps.Load(),
		"shed": g.n.shed.Load(), "throttled": g.n.throttled.Load(),
		"overloaded": g.n.overloaded.Load(), "denied": g.n.denied.Load(),
	}
}
