package main

import (
	"math"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics is the gateway's Prometheus registry (its own, not the global one):
// per-tenant requests and latency, counted in striped series of our own
// (cmdCollector) so that commands on different cores do not write the same
// cache lines, and the components' counters read at scrape time from their
// Stats.
type metrics struct {
	reg  *prometheus.Registry
	cmds *cmdCollector // gateway_requests_total, gateway_request_seconds

	// srv is the RESP server whose connection counters /metrics reads (as
	// INFO does), once newServer has made it: the registry is the
	// Gateway's, made before its server.
	srv atomic.Pointer[Server]
}

// latencyBuckets are the request histogram's bounds: 50 µs doubling up to
// 6.55 s, above request_timeout's 5 s default, so that commands that wait out
// the timeout land in a bucket of their own rather than in +Inf with every
// other slow command (the top bound was 1.64 s).
var latencyBuckets = prometheus.ExponentialBuckets(50e-6, 2, latencyBucketCount)

func newMetrics(g *Gateway) *metrics {
	m := &metrics{
		reg:  prometheus.NewRegistry(),
		cmds: newCmdCollector(g.tenants),
	}
	counter := func(name, help string, f func() float64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help}, f)
	}
	gauge := func(name, help string, f func() float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, f)
	}
	m.reg.MustRegister(m.cmds, newShedCollector(g),
		counter("gateway_backend_calls_total", "Backend calls (one per batch; a KVSCAN's reads of each shard, more than one when expired keys take its limit; a transaction's round trips on Redis; on memkv, each WATCH that reads the store, each read after WATCH and an EXEC that names a key).", func() float64 { return float64(g.n.backendCalls.Load()) }),
		counter("gateway_backend_ops_total", "Ops sent to the backend, in the calls gateway_backend_calls_total counts (a key read or written; a shard's scan).", func() float64 { return float64(g.n.backendOps.Load()) }),
		counter("gateway_request_panics_total", "Panics recovered in a batch's backend call, a coalesced fetch or a cache fill, a bug; their commands answer ERR internal error (INFO's request_panics).", func() float64 { return float64(g.n.panics.Load()) }),
		counter("gateway_auth_failures_total", "AUTH and HELLO AUTH refused (WRONGPASS: a user that is no tenant, or a wrong password); one series, not one per username, which clients choose (INFO's acl_access_denied_auth).", func() float64 { return float64(g.n.authFailures.Load()) }),
		counter("gateway_shed_total", "Commands shed.", func() float64 { return float64(g.n.shed.Load()) }),
		counter("gateway_throttled_total", "Commands refused over quota.", func() float64 { return float64(g.n.throttled.Load()) }),
		counter("gateway_overloaded_total", "Commands refused by admission, the batcher's in-flight cap or a shard's share of it.", func() float64 { return float64(g.n.overloaded.Load()) }),
		counter("gateway_coalesce_calls_total", "GETs through the coalescing group.", func() float64 { return float64(g.flights.Stats().Calls) }),
		counter("gateway_coalesce_joins_total", "GETs that joined a fetch in flight.", func() float64 { return float64(g.flights.Stats().Joins) }),
		counter("gateway_hot_linger_woken_total", "Hot-key fetches that waited and went when their expected readers had arrived (or the linger was turned off).", func() float64 { return float64(g.hot.woken.Load()) }),
		counter("gateway_hot_linger_timeouts_total", "Hot-key fetches that waited the whole linger.", func() float64 { return float64(g.hot.timedOut.Load()) }),
		gauge("gateway_batch_mean_fill", "Mean batch fill (items / max items).", func() float64 { return g.batches.Stats().MeanFill }),
		gauge("gateway_admission_limit", "The aimd concurrency limit.", func() float64 { return float64(g.limiter.Limit()) }),
	)
	m.reg.MustRegister(m.serverCollectors()...)
	m.reg.MustRegister(g.healthCollectors()...)
	if g.cache != nil {
		m.reg.MustRegister(
			counter("gateway_cache_hits_total", "GETs served by the caching tier.", func() float64 { return float64(g.cache.stats()["hits"]) }),
			counter("gateway_cache_misses_total", "GETs the caching tier read through.", func() float64 { return float64(g.cache.stats()["misses"]) }),
		)
	}
	for name, t := range g.tenants {
		// A label, not a name suffix: a-b and a.b are two tenants but one
		// sanitized metric name, and registering it twice panicked.
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "gateway_quota_tokens",
			Help: "Quota allowance left, by tenant (+Inf: no quota).", ConstLabels: prometheus.Labels{"tenant": name}},
			func() float64 {
				// An unlimited tenant's bucket is full (setLocked fills it
				// when its quota is turned off), but it is held to no
				// allowance, so the gauge reads +Inf.
				rate, _, tok := t.quota.get(time.Now())
				if rate == 0 {
					return math.Inf(1)
				}
				return tok
			}))
	}
	return m
}

// observe records one command.
func (m *metrics) observe(t *tenant, spec *cmdSpec, ok bool, d time.Duration) {
	if m == nil {
		return
	}
	m.cmds.observe(t, spec, ok, d)
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// serverCollectors are the RESP server's connection counters, the ones INFO
// reports under Clients and Stats; 0 until the server is made.
func (m *metrics) serverCollectors() []prometheus.Collector {
	read := func(f func(s *Server) *atomic.Int64) func() float64 {
		return func() float64 {
			if s := m.srv.Load(); s != nil {
				return float64(f(s).Load())
			}
			return 0
		}
	}
	counter := func(name, help string, f func(s *Server) *atomic.Int64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help}, read(f))
	}
	return []prometheus.Collector{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "gateway_connected_clients", Help: "Client connections open (INFO's connected_clients)."},
			read(func(s *Server) *atomic.Int64 { return &s.active })),
		counter("gateway_connections_received_total", "Client connections accepted; those refused at max_conns are not counted here, as in Redis (INFO's total_connections_received).", func(s *Server) *atomic.Int64 { return &s.accepted }),
		counter("gateway_connections_rejected_total", "Client connections refused at max_conns, or accepted during a shutdown and refused (INFO's rejected_connections).", func(s *Server) *atomic.Int64 { return &s.refused }),
		counter("gateway_protocol_errors_total", "Connections closed for malformed input (INFO's protocol_errors).", func(s *Server) *atomic.Int64 { return &s.protoErrors }),
		counter("gateway_tls_handshake_failures_total", "Connections closed for a failed TLS handshake, not counted in protocol errors (INFO's tls_handshake_failures).", func(s *Server) *atomic.Int64 { return &s.tlsFailures }),
		counter("gateway_requests_too_large_total", "Requests refused over max_request_bytes (INFO's requests_too_large).", func(s *Server) *atomic.Int64 { return &s.tooLarge }),
		counter("gateway_connection_panics_total", "Connections ended by a recovered panic, a bug (INFO's connection_panics).", func(s *Server) *atomic.Int64 { return &s.panics }),
	}
}
