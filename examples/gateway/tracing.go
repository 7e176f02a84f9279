package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Request traces: with -otel stdout (config "otel"), each data command
// outside a transaction (not a read after WATCH that callTx serves from the
// transaction's snapshot, nor what EXEC runs; a read after WATCH that runs as
// outside a transaction has one) that
// passes the sampler (-otel-sample, config "otel_sample") gets a span named
// after the command, with the tenant, the shards it touched, the size of the
// backend call(s) that carried it, whether it joined another caller's fetch
// (coalesced) or was a hit of the caching tier (cached), and the outcome (ok,
// error, or the refusal: shed, throttled, overloaded, the last also by the
// batcher's in-flight cap, as gateway_overloaded_total counts it). Off by
// default; off, the request path pays one nil check per command and per op,
// and no allocation.

// Span attribute keys.
const (
	attrTenant    = attribute.Key("tierkit.tenant")
	attrCommand   = attribute.Key("db.operation.name")
	attrKeys      = attribute.Key("tierkit.keys")
	attrShards    = attribute.Key("tierkit.shards")
	attrBatch     = attribute.Key("tierkit.batch_size")
	attrCoalesced = attribute.Key("tierkit.coalesced")
	attrCached    = attribute.Key("tierkit.cached")
	attrOutcome   = attribute.Key("tierkit.outcome")
)

// tracer makes the spans. A nil *tracer is off: its methods do nothing.
type tracer struct {
	tp *sdktrace.TracerProvider
	tr trace.Tracer
}

// newTracer returns the tracer cfg asks for, or nil when traces are off.
func newTracer(cfg Config) (*tracer, error) {
	exp := cfg.spanExporter
	if exp == nil {
		if cfg.OTel != "stdout" {
			return nil, nil
		}
		var err error
		if exp, err = stdouttrace.New(stdouttrace.WithWriter(os.Stdout)); err != nil {
			return nil, err
		}
	}
	opts := []sdktrace.TracerProviderOption{
		sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.TraceIDRatioBased(cfg.OTelSample))),
	}
	if cfg.spanExporter != nil {
		opts = append(opts, sdktrace.WithSyncer(exp)) // tests read spans as soon as they end
	} else {
		opts = append(opts, sdktrace.WithBatcher(exp))
	}
	tp := sdktrace.NewTracerProvider(opts...)
	return &tracer{tp: tp, tr: tp.Tracer("github.com/tierkit/tierkit/examples/gateway")}, nil
}

// tracerFlushTimeout bounds the flush of the spans not yet exported at
// shutdown: an exporter stuck on its output (a pipe nobody reads) must not
// hold Gateway.Close, and with it the drain, until run's hard timer.
const tracerFlushTimeout = 2 * time.Second

// shutdown flushes the spans not yet exported, for at most
// tracerFlushTimeout; past it the spans left are dropped and the error says
// so (errors.Is context.DeadlineExceeded).
func (t *tracer) shutdown() error {
	if t == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), tracerFlushTimeout)
	defer cancel()
	if err := t.tp.Shutdown(ctx); err != nil {
		return fmt.Errorf("traces: flushing the spans at shutdown: %w", err)
	}
	return nil
}

// exportLogEvery is the least time between two log lines about failed
// exports of spans.
const exportLogEvery = 10 * time.Second

// exportErrors is OpenTelemetry's error handler (otel.SetErrorHandler): it
// logs the errors the SDK reports, mostly a failed export of a batch of
// spans (its stdout closed), at most once per exportLogEvery, with the count
// of those not logged. The handler is process-wide and gets the SDK's other
// errors too (a malformed OTEL_RESOURCE_ATTRIBUTES at start, say), so the
// line does not claim an export failed. The default handler printed each one whole, and the stdout
// exporter's error has a line per span of the batch: a line on stderr per
// traced command.
type exportErrors struct {
	log *slog.Logger

	mu       sync.Mutex
	last     time.Time // of the last line
	unlogged int       // errors since it
}

// Handle logs err, or counts it.
func (h *exportErrors) Handle(err error) {
	now := time.Now()
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.last.IsZero() && now.Sub(h.last) < exportLogEvery {
		h.unlogged++
		return
	}
	first, _, _ := strings.Cut(err.Error(), "\n")
	h.log.Warn("request traces: OpenTelemetry error (a failed export loses its spans)", "err", first, "unlogged_errors", h.unlogged)
	h.last, h.unlogged = now, 0
}

// cmdTrace gathers what the request path learns about one command; the ops of
// a multi-key command note it from several goroutines.
type cmdTrace struct {
	span trace.Span

	mu       sync.Mutex // protects the fields below
	shards   []int
	batch    int // largest backend call that carried one of its ops
	ops      int
	coalOps  int // ops through the coalescing group
	cacheOps int // ops through the caching tier
	fetches  int // fetches those ops ran themselves (the others joined one, or hit)
}

// opPath is the way one op went to its shard.
type opPath uint8

const (
	viaBatch      opPath = iota + 1 // straight to its shard's batch
	viaCoalescing                   // through the coalescing group, or a miss of the caching tier (which coalesces its misses)
	viaCache                        // a hit of the caching tier (as far as a traced GET could tell)
)

type traceKey struct{}

// start opens the span of one data command. It returns ctx unchanged and a
// nil *cmdTrace when traces are off or the command is not sampled.
func (t *tracer) start(ctx context.Context, tn *tenant, spec *cmdSpec, args [][]byte) (context.Context, *cmdTrace) {
	if t == nil {
		return ctx, nil
	}
	sctx, span := t.tr.Start(ctx, spec.name, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(
		attrTenant.String(tn.cfg.Name), attrCommand.String(spec.name), attrKeys.Int(spec.nkeys(len(args)))))
	if !span.IsRecording() {
		return ctx, nil
	}
	ct := &cmdTrace{span: span}
	return context.WithValue(sctx, traceKey{}, ct), ct
}

// traceOf returns the command's trace carried by ctx, or nil.
func traceOf(ctx context.Context) *cmdTrace {
	ct, _ := ctx.Value(traceKey{}).(*cmdTrace)
	return ct
}

// fetched records that one of the command's ops ran its own fetch (it did not
// join another caller's, or it missed the cache). The fetch func calls it, so
// that the request path keeps no flag of its own for it (a flag a closure sets
// escapes to the heap, traces off or on).
func (ct *cmdTrace) fetched() {
	if ct == nil {
		return
	}
	ct.mu.Lock()
	ct.fetches++
	ct.mu.Unlock()
}

// carried records the size of a backend call that carried one of the
// command's ops on a path whose result does not keep it (a fill of the
// caching tier).
func (ct *cmdTrace) carried(batch int32) {
	if ct == nil {
		return
	}
	ct.mu.Lock()
	ct.batch = max(ct.batch, int(batch))
	ct.mu.Unlock()
}

// note records one op (or one shard's part of a multi-key command): its shard,
// the size of the backend call that carried it (0 if none did), and its path.
func (ct *cmdTrace) note(shard int, batch int32, path opPath) {
	if ct == nil {
		return
	}
	ct.mu.Lock()
	defer ct.mu.Unlock()
	if !slices.Contains(ct.shards, shard) {
		ct.shards = append(ct.shards, shard)
	}
	ct.batch = max(ct.batch, int(batch))
	ct.ops++
	switch path {
	case viaCoalescing:
		ct.coalOps++
	case viaCache:
		ct.cacheOps++
	}
}

// admitOutcome names an admission refusal for the span.
func admitOutcome(err error) string {
	switch err {
	case errShed:
		return "shed"
	case errThrottled:
		return "throttled"
	case errOverloaded, errMemory:
		return "overloaded"
	}
	return "error"
}

// end closes the span with the command's outcome; errMsg is its error reply,
// if any.
func (ct *cmdTrace) end(outcome, errMsg string) {
	if ct == nil {
		return
	}
	ct.mu.Lock()
	slices.Sort(ct.shards)
	attrs := []attribute.KeyValue{
		attrOutcome.String(outcome),
		attrShards.IntSlice(ct.shards),
		attrBatch.Int(ct.batch),
		// Every op joined a fetch in flight, or every op was a cache hit.
		attrCoalesced.Bool(ct.ops > 0 && ct.coalOps == ct.ops && ct.fetches == 0),
		attrCached.Bool(ct.ops > 0 && ct.cacheOps == ct.ops && ct.fetches == 0),
	}
	ct.mu.Unlock()
	ct.span.SetAttributes(attrs...)
	if errMsg != "" {
		ct.span.SetStatus(codes.Error, errMsg)
	}
	ct.span.End()
}
