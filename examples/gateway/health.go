package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// shardHealth is what the gateway knows of one backend shard: whether its
// last batch failed (Backend.Do's error: the shard is unreachable or did not
// answer within the request timeout), since when, and how many batches
// failed. A read batch that a replica of the shard answered leaves it as it
// is: the shard's primary was not asked (the replica has its own health).
// The gateway logs the changes, not every failure: a shard that stops
// answering makes one warning, and one line when it answers again, however
// many requests meet the outage. A shard that flaps (a slow shard whose
// batches time out now and then) makes at most one warning per
// healthLogEvery: an outage that starts sooner after the last warning is
// logged only if it lasts healthLogDelay, and the next warning counts the
// ones that were not. A request context's cancellation is not a failure of
// the shard.
//
// mu orders the transitions (up to down with the outage's start, down to up
// with its end): without it, a batch answering between a failure's marking
// the shard down and its recording the outage's start ended the outage with
// the previous outage's start (a down_for hours long in the log), and a
// failure could log "unreachable" for a shard that answered meanwhile. The
// two log lines are written under it, so a shard's lines alternate. Batches
// of a shard that stays up, or stays down once its outage is logged, take no
// lock.
type shardHealth struct {
	mu         sync.Mutex
	down       atomic.Bool
	since      atomic.Int64  // unix ns: the first failure of the current outage
	outage     atomic.Uint64 // failed batches in the current outage
	failed     atomic.Uint64 // failed batches, all time
	logged     atomic.Bool   // the current outage's start was logged
	lastLog    atomic.Int64  // unix ns of the last warning
	suppressed atomic.Uint64 // outages ended without being logged since it
}

const (
	healthLogEvery = 10 * time.Second // least time between two warnings of a shard
	healthLogDelay = time.Second      // an outage this long is logged anyway
)

// shardFailed records a failed batch of shard and logs the start of an
// outage (see shardHealth).
func (g *Gateway) shardFailed(shard int, err error, now time.Time) {
	g.health[shard].fail(err, now, g.log, "backend shard unreachable: its keys fail until it answers", "shard", shard)
}

// fail records a failed batch at now and logs the start of an outage as msg
// with attrs (see shardHealth): the health of a shard, or of a replica
// (redis_backend.go).
func (h *shardHealth) fail(err error, now time.Time, log *slog.Logger, msg string, attrs ...any) {
	if errors.Is(err, context.Canceled) {
		return
	}
	h.failed.Add(1)
	if h.down.Load() || !h.markDown(now) {
		h.outage.Add(1)
	}
	if h.logged.Load() {
		return
	}
	ns := now.UnixNano()
	if ns-h.lastLog.Load() < int64(healthLogEvery) && ns-h.since.Load() < int64(healthLogDelay) {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.down.Load() && !h.logged.Load() { // not ended, nor logged, meanwhile
		h.logged.Store(true)
		h.lastLog.Store(ns)
		log.Warn(msg, append(attrs, "err", err, "unlogged_outages", h.suppressed.Swap(0))...)
	}
}

// markDown starts an outage at now unless one is on: it reports whether it
// did.
func (h *shardHealth) markDown(now time.Time) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.down.Load() {
		return false
	}
	h.since.Store(now.UnixNano())
	h.outage.Store(1)
	h.logged.Store(false)
	h.down.Store(true)
	return true
}

// shardAnswered records a batch of shard that succeeded and logs the end of
// an outage whose start was logged. Outside an outage it costs one atomic
// load (and reads no clock).
func (g *Gateway) shardAnswered(shard int, now func() time.Time) {
	h := &g.health[shard]
	if !h.down.Load() {
		return
	}
	h.answered(now, g.log, "backend shard answers again", "shard", shard)
}

// answered records a success during an outage (the caller checked down)
// and logs the outage's end as msg with attrs if its start was logged.
func (h *shardHealth) answered(now func() time.Time, log *slog.Logger, msg string, attrs ...any) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.down.Load() {
		return
	}
	h.down.Store(false)
	if !h.logged.Load() {
		h.suppressed.Add(1)
		return
	}
	down := now().Sub(time.Unix(0, h.since.Load()))
	log.Info(msg, append(attrs, "down_for", down.Round(time.Millisecond), "failed_batches", h.outage.Load())...)
}

// healthCollectors are the per-shard series: up (1, or 0 during an outage)
// and failed batches; and the same per replica of a Redis shard, whose
// outages move the shard's reads to its other replicas or its primary.
func (g *Gateway) healthCollectors() []prometheus.Collector {
	var cs []prometheus.Collector
	series := func(what, failures string, h *shardHealth, labels prometheus.Labels) {
		cs = append(cs,
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "gateway_backend_" + what + "_up", ConstLabels: labels,
				Help: "1 while the backend " + what + " answers, 0 from a failed batch until one succeeds."},
				func() float64 {
					if h.down.Load() {
						return 0
					}
					return 1
				}),
			prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "gateway_backend_" + what + "_failed_batches_total", ConstLabels: labels,
				Help: "Batches the backend " + what + " failed (" + failures + ")."},
				func() float64 { return float64(h.failed.Load()) }))
	}
	for i := range g.health {
		series("shard", "unreachable, or no answer within the request timeout", &g.health[i], prometheus.Labels{"shard": strconv.Itoa(i)})
	}
	for _, r := range g.replicas() {
		series("replica", "read batches: unreachable, no answer within its half of the request timeout, or reads refused", &r.health, prometheus.Labels{"shard": strconv.Itoa(r.shard), "replica": strconv.Itoa(r.index), "addr": r.addr})
	}
	return cs
}

// replicas are the backend's replicas, shard by shard (none but on Redis
// shards).
func (g *Gateway) replicas() []*replica {
	b, ok := asRedis(g.backend)
	if !ok {
		return nil
	}
	var rs []*replica
	for _, reps := range b.dataReplicas {
		rs = append(rs, reps...)
	}
	return rs
}

// infoFields are h's fields in INFO's Backend section: whether it answers,
// the batches it failed, and, during an outage, since when.
func (h *shardHealth) infoFields() string {
	h.mu.Lock() // up and down_since_ms of one state (the transitions are made under it)
	down, since := h.down.Load(), h.since.Load()
	h.mu.Unlock()
	l := fmt.Sprintf("up=%d,failed_batches=%d", boolInt(!down), h.failed.Load())
	if down {
		l += fmt.Sprintf(",down_since_ms=%d", time.Unix(0, since).UnixMilli())
	}
	return l
}

// discardLogger is the logger of a gateway made without one.
var discardLogger = slog.New(slog.DiscardHandler)

// A shard's share of the in-flight budget: each shard may have at most
// max_in_flight / shares (at least 1) batches in its backend call at once,
// so that a shard that hangs (accepts calls and never answers, until the
// request timeout) cannot take the whole budget, which the batcher shares
// among all shards, and starve the healthy shards' requests. A batch over
// its shard's share is answered OVERLOADED at once, without a backend call.
//
// A Redis shard with replicas has two shares: its primary's (its writes,
// and the reads that must read the primary) and its replicas' (its batches
// of GETs that go to a replica, and to the primary when the replica fails),
// so shares counts one per shard and one more per shard with replicas: a
// shard whose primary and replicas all hang holds no more than two shares,
// the other shards keeping theirs. Before, a shard had one share: writes
// that hung on its primary filled it, and its reads, which its replicas
// answered, were refused OVERLOADED for as long as the primary hung.

// setShardShare sets each share of the in-flight budget from max_in_flight.
// A shard's replicas have a share only while they are read: with the caching
// tier on (fillTTL, set before this first runs) its GETs are the tier's
// fills, which read the primary, and the replicas' shares, never used, held
// the primaries to half the budget.
func (g *Gateway) setShardShare(maxInFlight int) {
	shares := len(g.shardFlights)
	if b, ok := asRedis(g.backend); ok && !b.fillTTL.Load() {
		for _, r := range b.dataReplicas {
			if len(r) > 0 {
				shares++
			}
		}
	}
	g.shardShare.Store(int64(max(1, maxInFlight/shares)))
}

// readsReplica reports whether a batch of ops for shard goes to one of its
// replicas (redisBackend.readsReplica): it counts in their share.
func (g *Gateway) readsReplica(shard int, ops []op) bool {
	b, ok := asRedis(g.backend)
	return ok && b.readsReplica(shard, ops)
}

// enterShard counts a batch into inflight, a shard's backend calls in
// flight (its primary's or its replicas'), unless they hold their share
// already (and the gateway is not draining, when every open batch is
// flushed, as the batcher's own cap allows). The caller that entered
// decrements inflight when its call returns. A refused batch is never
// counted, not even for a moment: counted and taken back, it made a batch
// entering meanwhile find the share taken when it was not (as the batcher's
// own slots are taken).
func (g *Gateway) enterShard(inflight *atomic.Int64) bool {
	for {
		n := inflight.Load()
		if n >= g.shardShare.Load() && !g.draining.Load() {
			return false
		}
		if inflight.CompareAndSwap(n, n+1) {
			return true
		}
	}
}
