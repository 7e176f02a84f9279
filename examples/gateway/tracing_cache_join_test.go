package main

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// A GET that misses the caching tier while another GET's fill of the key is in
// flight joins that fill (the cache coalesces its misses): its span says it
// joined another caller's fetch (coalesced), not that it was a cache hit (the
// cache counts it a miss). Both flags were wrong: cached=true, coalesced=false.
func TestTracesCacheJoinedFillIsNotAHit(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	in := startGateway(t, Config{spanExporter: exp, CacheCapacity: 1000})
	g := in.gw
	const key = "k"
	bb := &blockingBackend{Backend: g.backend, hold: g.shard(key), entered: make(chan struct{}), release: make(chan struct{})}
	g.backend = bb // before any traffic, as registerChaos does
	ctx := context.Background()

	a, b := client(t, in, nil), client(t, in, nil)
	done := make(chan error, 2)
	go func() { done <- a.Get(ctx, key).Err() }()
	<-bb.entered // a's fill is in the backend
	go func() { done <- b.Get(ctx, key).Err() }()
	// Wait until b waits on a's fill in the cache's coalescing group.
	joined := func() bool {
		buf := make([]byte, 1<<20)
		return strings.Contains(string(buf[:runtime.Stack(buf, true)]), "coalesce.(*Group[...]).wait")
	}
	for deadline := time.Now().Add(10 * time.Second); !joined(); {
		require.True(t, time.Now().Before(deadline), "the second GET never joined the fill")
		runtime.Gosched()
	}
	close(bb.release)
	require.ErrorIs(t, <-done, redis.Nil)
	require.ErrorIs(t, <-done, redis.Nil)

	gets := spansNamed(exp, "GET")
	require.Len(t, gets, 2)
	var cached, coalesced int
	for _, s := range gets {
		a := spanAttrs(s)
		if a[attrCached].AsBool() {
			cached++
		}
		if a[attrCoalesced].AsBool() {
			coalesced++
		}
	}
	require.Equal(t, uint64(2), g.cache.stats()["misses"], "both GETs missed the cache")
	assert.Equal(t, 0, cached, "no GET was a hit of the caching tier")
	assert.Equal(t, 1, coalesced, "the second GET joined the first one's fill")
}
