package main

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// TestTracesKVScanTouchesEveryShard: a KVSCAN reads every shard, each read a
// backend call of one op (gateway_backend_calls_total counts them), so its
// span names every shard in tierkit.shards and a tierkit.batch_size of 1, as
// a multi-key command's span names the shards its parts went to. The span
// had no shard and a batch size of 0, which reads as a command that touched
// no backend at all.
func TestTracesKVScanTouchesEveryShard(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	in := startGateway(t, Config{spanExporter: exp, HTTPAddr: "-"})
	ctx := context.Background()
	c := client(t, in, nil)
	for i := range 8 {
		require.NoError(t, c.Set(ctx, fmt.Sprint("scan", i), "v", 0).Err())
	}
	calls := in.gw.n.backendCalls.Load()
	res, err := c.Do(ctx, "KVSCAN", "scan", "scan~").Slice()
	require.NoError(t, err)
	require.Len(t, res, 16)
	shards := in.gw.backend.Shards()
	require.Equal(t, uint64(shards), in.gw.n.backendCalls.Load()-calls, "a scan per shard")
	spans := spansNamed(exp, "KVSCAN")
	require.Len(t, spans, 1)
	a := spanAttrs(spans[0])
	want := make([]int64, shards)
	for i := range want {
		want[i] = int64(i)
	}
	assert.Equal(t, "ok", a[attrOutcome].AsString())
	assert.Equal(t, want, a[attrShards].AsInt64Slice(), "every shard scanned")
	assert.Equal(t, int64(1), a[attrBatch].AsInt64(), "each scan is a backend call of one op")
	assert.False(t, a[attrCoalesced].AsBool())
	assert.False(t, a[attrCached].AsBool())
}
