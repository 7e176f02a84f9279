package main

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// TestTracesFailedShardTouched: a multi-key command whose part for one
// shard fails (the shard is down) touched that shard too: its span's
// tierkit.shards names both shards, as a single-key command's span names the
// shard that failed it. The failed shard was left out, the one a trace of the
// failure is read for.
func TestTracesFailedShardTouched(t *testing.T) {
	s0, s1 := startRedis(t), startRedis(t)
	exp := tracetest.NewInMemoryExporter()
	in := startGateway(t, Config{spanExporter: exp, Backend: BackendConfig{Kind: "redis", Redis: []string{s0.addr, s1.addr}}})
	ctx := context.Background()
	c := client(t, in, nil)
	keyOn := map[int]string{}
	for i := 0; len(keyOn) < 2; i++ {
		k := fmt.Sprint("key", i)
		keyOn[in.gw.shard(k)] = k
	}
	require.NoError(t, c.Ping(ctx).Err())
	s1.stop()

	require.ErrorContains(t, c.Get(ctx, keyOn[1]).Err(), "backend shard 1")
	require.ErrorContains(t, c.MSet(ctx, keyOn[0], "v", keyOn[1], "v").Err(), "backend shard 1")
	get := spansNamed(exp, "GET")
	require.Len(t, get, 1)
	assert.Equal(t, []int64{1}, spanAttrs(get[0])[attrShards].AsInt64Slice(), "GET")
	mset := spansNamed(exp, "MSET")
	require.Len(t, mset, 1)
	assert.Equal(t, "error", spanAttrs(mset[0])[attrOutcome].AsString())
	assert.Equal(t, []int64{0, 1}, spanAttrs(mset[0])[attrShards].AsInt64Slice(), "MSET")
}
