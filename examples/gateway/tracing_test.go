package main

import (
	"context"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// spanAttrs returns the attributes of a span as a map.
func spanAttrs(s tracetest.SpanStub) map[attribute.Key]attribute.Value {
	m := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes {
		m[kv.Key] = kv.Value
	}
	return m
}

// spansNamed returns the ended spans named name.
func spansNamed(exp *tracetest.InMemoryExporter, name string) []tracetest.SpanStub {
	var out []tracetest.SpanStub
	for _, s := range exp.GetSpans() {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// TestTracesCarryTheRequestPath: with traces on, every data command gets one
// span with its tenant, command, shards, backend call size, coalesced and
// cached flags and admission outcome.
func TestTracesCarryTheRequestPath(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	in := startGateway(t, Config{spanExporter: exp, Tenants: []TenantConfig{
		{Name: "default"}, {Name: "slow", QuotaRate: 0.001, QuotaBurst: 1}}})
	ctx := context.Background()
	c := client(t, in, nil)
	require.NoError(t, c.Set(ctx, "a", "1", 0).Err())
	require.Equal(t, "1", c.Get(ctx, "a").Val())
	keys := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
	shards := map[int64]bool{}
	perShard := map[int]int64{} // the MGET's ops on each shard
	for _, k := range keys {
		shards[int64(in.gw.shard(k))] = true
		perShard[in.gw.shard(k)]++
	}
	require.NoError(t, c.MGet(ctx, keys...).Err())
	require.Equal(t, "PONG", c.Ping(ctx).Val()) // not a data command: no span

	set := spansNamed(exp, "SET")
	require.Len(t, set, 1)
	a := spanAttrs(set[0])
	assert.Equal(t, "default", a[attrTenant].AsString())
	assert.Equal(t, "SET", a[attrCommand].AsString())
	assert.Equal(t, []int64{int64(in.gw.shard("a"))}, a[attrShards].AsInt64Slice())
	assert.Equal(t, int64(1), a[attrBatch].AsInt64(), "a lone SET is a backend call of one op")
	assert.Equal(t, "ok", a[attrOutcome].AsString())
	assert.False(t, a[attrCoalesced].AsBool())
	assert.False(t, a[attrCached].AsBool())

	get := spansNamed(exp, "GET")
	require.Len(t, get, 1)
	assert.Equal(t, "ok", spanAttrs(get[0])[attrOutcome].AsString())

	mget := spansNamed(exp, "MGET")
	require.Len(t, mget, 1)
	a = spanAttrs(mget[0])
	assert.Equal(t, int64(len(keys)), a[attrKeys].AsInt64())
	assert.Len(t, a[attrShards].AsInt64Slice(), len(shards), "one entry per shard touched")
	// One connection: each shard's part of the MGET is a backend call of its
	// own ops alone, and the span carries the largest.
	assert.Equal(t, slices.Max(slices.Collect(maps.Values(perShard))), a[attrBatch].AsInt64(),
		"the largest backend call of the MGET: its ops on the shard holding most of its keys")
	assert.Empty(t, spansNamed(exp, "PING"))

	// Over quota: the span says throttled and carries the error.
	slow := client(t, in, &redis.Options{Username: "slow", Password: "x"})
	require.NoError(t, slow.Get(ctx, "a").Err())                    // spends the burst
	require.ErrorContains(t, slow.Get(ctx, "a").Err(), "THROTTLED") // refused
	var throttled []tracetest.SpanStub
	for _, s := range spansNamed(exp, "GET") {
		if spanAttrs(s)[attrTenant].AsString() == "slow" && spanAttrs(s)[attrOutcome].AsString() == "throttled" {
			throttled = append(throttled, s)
		}
	}
	require.Len(t, throttled, 1)
	assert.Equal(t, codes.Error, throttled[0].Status.Code)
}

// TestTracesCoalescedAndCached: GETs that join another's fetch are marked
// coalesced; a hit of the caching tier is marked cached.
func TestTracesCoalescedAndCached(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	in := startGateway(t, Config{spanExporter: exp, CacheCapacity: 1000})
	ctx := context.Background()
	c := client(t, in, &redis.Options{PoolSize: 16})
	require.NoError(t, c.Set(ctx, "k", "v", 0).Err())
	require.Equal(t, "v", c.Get(ctx, "k").Val()) // fills the cache
	require.Equal(t, "v", c.Get(ctx, "k").Val()) // a hit
	gets := spansNamed(exp, "GET")
	require.Len(t, gets, 2)
	assert.False(t, spanAttrs(gets[0])[attrCached].AsBool(), "the fill")
	assert.True(t, spanAttrs(gets[1])[attrCached].AsBool(), "the hit")
	assert.Equal(t, int64(0), spanAttrs(gets[1])[attrBatch].AsInt64(), "a hit makes no backend call")

	// Coalescing: without the cache, a slow backend keeps the first fetch in
	// flight while 8 more GETs of the key arrive.
	exp2 := tracetest.NewInMemoryExporter()
	in2 := startGateway(t, Config{spanExporter: exp2})
	in2.gw.backend.(*chaosBackend).delay.Store(int64(50 * time.Millisecond))
	c2 := client(t, in2, &redis.Options{PoolSize: 16})
	var wg sync.WaitGroup
	for range 9 {
		wg.Go(func() { assert.ErrorIs(t, c2.Get(ctx, "hot").Err(), redis.Nil) })
	}
	wg.Wait()
	joined := 0
	for _, s := range spansNamed(exp2, "GET") {
		if spanAttrs(s)[attrCoalesced].AsBool() {
			joined++
		}
	}
	t.Logf("%d of 9 GETs joined a fetch in flight (%d fetches)", joined, 9-joined)
	assert.Positive(t, joined, "some GETs joined the first fetch")
	assert.Equal(t, uint64(joined), in2.gw.flights.Stats().Joins, "spans agree with the coalescing group")
}

// TestTracesSampled: a sampling ratio near zero records (almost) nothing.
func TestTracesSampled(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	in := startGateway(t, Config{spanExporter: exp, OTelSample: 1e-12})
	c := client(t, in, nil)
	for i := range 50 {
		require.NoError(t, c.Set(context.Background(), "s", i, 0).Err())
	}
	assert.Empty(t, exp.GetSpans())
}
