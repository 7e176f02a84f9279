package main

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// A command refused by the batcher's in-flight cap is answered OVERLOADED and
// counted in gateway_overloaded_total, as one refused by admission: its span's
// outcome says overloaded too (it said error).
func TestTracesOverloadedByInFlightCap(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	in := startGateway(t, Config{spanExporter: exp, Backend: BackendConfig{Shards: 2}, MaxInFlight: 1})
	g := in.gw
	bb := &blockingBackend{Backend: g.backend, hold: 0, entered: make(chan struct{}), release: make(chan struct{})}
	g.backend = bb // before any traffic, as registerChaos does
	ctx := context.Background()
	var k0, k1 string
	for i := 0; k0 == "" || k1 == ""; i++ {
		k := fmt.Sprint("k", i)
		if g.shard(k) == 0 && k0 == "" {
			k0 = k
		} else if g.shard(k) == 1 && k1 == "" {
			k1 = k
		}
	}
	a, b := client(t, in, nil), client(t, in, nil)
	done := make(chan error, 1)
	go func() { done <- a.Set(ctx, k0, "v", 0).Err() }()
	<-bb.entered // shard 0's batch is in flight: the cap (1) is reached

	require.ErrorContains(t, b.Set(ctx, k1, "v", 0).Err(), "OVERLOADED")
	close(bb.release)
	require.NoError(t, <-done)
	require.Equal(t, uint64(1), g.n.overloaded.Load())

	var outcomes []string
	for _, s := range spansNamed(exp, "SET") {
		a := spanAttrs(s)
		outcomes = append(outcomes, a[attrOutcome].AsString())
		if a[attrOutcome].AsString() != "ok" {
			assert.Equal(t, codes.Error, s.Status.Code)
		}
	}
	assert.ElementsMatch(t, []string{"ok", "overloaded"}, outcomes)
}
