package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// TestTracesPanicEndsSpan: a data command that panics (a bug: its
// connection is closed) still ends its span, with the outcome error: the
// span was left open and never exported, so the one command whose trace is
// read to find the bug had none.
func TestTracesPanicEndsSpan(t *testing.T) {
	incr := commands["INCR"]
	incrFn := incr.fn
	t.Cleanup(func() { incr.fn = incrFn }) // after the gateway's shutdown
	exp := tracetest.NewInMemoryExporter()
	in := startGateway(t, Config{spanExporter: exp, HTTPAddr: "-"})
	incr.fn = func(context.Context, *session, [][]byte) any { panic("boom") }
	c := client(t, in, nil)
	require.Error(t, c.Incr(context.Background(), "n").Err())
	require.Equal(t, int64(1), in.srv.panics.Load())
	incr.fn = incrFn
	spans := spansNamed(exp, "INCR")
	require.Len(t, spans, 1, "the panicked command's span ended")
	assert.Equal(t, "error", spanAttrs(spans[0])[attrOutcome].AsString())
	assert.Equal(t, codes.Error, spans[0].Status.Code)
}
