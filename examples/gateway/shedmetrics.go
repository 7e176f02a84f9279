package main

import (
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tierkit/tierkit/shed"
)

// shedPriorities are the shed priorities a tenant's requests have: 0 (low)
// and 1 (high), its priority or its command_priorities'.
const shedPriorities = 2

// shedKeepTenants is the gateway's shed IdleTimeout: the longest shed takes
// (about 26 days). Its tenants are the configured ones, never more, so their
// state need not be reclaimed to bound memory, and reclaiming it set their
// per-bucket counts, which shedCollector serves as counters, back to zero.
// shed has no longer one: a tenant that sends nothing for about 26 days
// while others are served is still reclaimed, and its counts (/metrics'
// series and INFO's per-priority fields) start again from zero.
const shedKeepTenants = time.Duration(1) << 51

// shedCollector serves shed's per-bucket stats, by tenant and priority: the
// requests admitted, those refused by reason, those canceled, the queue and
// the wait of those admitted after waiting. A request is an admission: one
// command, or a pipelined run or an EXEC admitted as one (gateway_shed_total
// counts commands). A scrape reads shed's buckets once, under one lock, and
// serves every configured tenant at both priorities, zero before its first
// request: a series that appears at its first count loses it to rate().
type shedCollector struct {
	g                                        *Gateway
	names                                    []string // the tenants, sorted
	admitted, rejected, canceled, queued, wt *prometheus.Desc
}

var _ prometheus.Collector = (*shedCollector)(nil)

func newShedCollector(g *Gateway) *shedCollector {
	labels := []string{"tenant", "priority"}
	return &shedCollector{g: g, names: slices.Sorted(maps.Keys(g.tenants)),
		admitted: prometheus.NewDesc("gateway_shed_admitted_total",
			"Requests shed admitted, by tenant and priority (a request: a command, or a pipelined run or EXEC admitted as one).", labels, nil),
		rejected: prometheus.NewDesc("gateway_shed_rejected_total",
			"Requests shed refused, by tenant, priority and reason (bucket_full, on_arrival, queue_deadline: expired in the queue, closed).",
			append(labels, "reason"), nil),
		canceled: prometheus.NewDesc("gateway_shed_canceled_total",
			"Requests that reached their own deadline waiting for admission (EXEC, WATCH), by tenant and priority.", labels, nil),
		queued: prometheus.NewDesc("gateway_shed_queued",
			"Requests waiting for admission now, by tenant and priority.", labels, nil),
		wt: prometheus.NewDesc("gateway_shed_wait_seconds",
			"Queue wait of the requests admitted after waiting, by tenant and priority.", labels, nil),
	}
}

func (c *shedCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.admitted, c.rejected, c.canceled, c.queued, c.wt} {
		ch <- d
	}
}

func (c *shedCollector) Collect(ch chan<- prometheus.Metric) {
	got := c.g.shedBuckets()
	counter := func(d *prometheus.Desc, v int64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
	}
	for _, name := range c.names {
		for p := range shedPriorities {
			b, prio := got[shedKey{name, p}], strconv.Itoa(p) // zero if shed keeps none yet
			counter(c.admitted, b.Admitted, name, prio)
			counter(c.rejected, b.ShedBucketFull, name, prio, "bucket_full")
			counter(c.rejected, b.ShedOnArrival, name, prio, "on_arrival")
			counter(c.rejected, b.ShedQueueDeadline-b.ShedOnArrival, name, prio, "queue_deadline")
			counter(c.rejected, b.ShedClosed, name, prio, "closed")
			counter(c.canceled, b.Canceled, name, prio)
			ch <- prometheus.MustNewConstMetric(c.queued, prometheus.GaugeValue, float64(b.Queued), name, prio)
			ch <- prometheus.MustNewConstSummary(c.wt, uint64(b.WaitCount), b.WaitTotal.Seconds(), nil, name, prio)
		}
	}
}

// shedKey names a shed bucket.
type shedKey struct {
	tenant string
	prio   int
}

// shedBuckets returns shed's buckets by tenant and priority, read at once
// (one lock of the shedder); a bucket shed does not keep yet is missing,
// its stats zero.
func (g *Gateway) shedBuckets() map[shedKey]shed.BucketStats {
	bs := g.shedder.Buckets()
	got := make(map[shedKey]shed.BucketStats, len(bs))
	for _, b := range bs {
		got[shedKey{b.Tenant, b.Priority}] = b
	}
	return got
}
