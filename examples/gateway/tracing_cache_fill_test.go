package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// TestTracesCacheFillBatch: a GET that misses the caching tier loads its key
// with a backend call of one op, and its span's tierkit.batch_size says so;
// it said 0 ("no backend call carried it"), since the cache keeps the value
// it fills, not the call that read it.
func TestTracesCacheFillBatch(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	in := startGateway(t, Config{spanExporter: exp, CacheCapacity: 1000})
	ctx := context.Background()
	c := client(t, in, nil)
	require.NoError(t, c.Set(ctx, "k", "v", 0).Err())
	calls := in.gw.n.backendCalls.Load()
	require.Equal(t, "v", c.Get(ctx, "k").Val()) // a miss: the fill
	require.Equal(t, calls+1, in.gw.n.backendCalls.Load(), "the fill is one backend call")
	require.Equal(t, "v", c.Get(ctx, "k").Val()) // a hit
	require.Equal(t, calls+1, in.gw.n.backendCalls.Load(), "a hit makes none")
	gets := spansNamed(exp, "GET")
	require.Len(t, gets, 2)
	assert.Equal(t, int64(1), spanAttrs(gets[0])[attrBatch].AsInt64(), "the fill's backend call carried it")
	assert.False(t, spanAttrs(gets[0])[attrCached].AsBool(), "the fill")
	assert.Equal(t, int64(0), spanAttrs(gets[1])[attrBatch].AsInt64(), "a hit makes no backend call")
	assert.True(t, spanAttrs(gets[1])[attrCached].AsBool(), "the hit")
}
