package main

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// stuckExporter is a span exporter whose Shutdown does not return until
// release is closed, whatever its context: an exporter writing to a pipe
// nobody reads.
type stuckExporter struct{ release chan struct{} }

func (e stuckExporter) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (e stuckExporter) Shutdown(context.Context) error                             { <-e.release; return nil }

// TestTracerShutdownBounded: the tracer's flush at shutdown gives up after
// tracerFlushTimeout with an error when its exporter is stuck. It waited on
// an unbounded context, so Gateway.Close, and with it Server.Shutdown, did
// not return; only run's hard timer ended the process, with a message
// blaming commands still running (found by a review).
func TestTracerShutdownBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		exp := stuckExporter{release: make(chan struct{})}
		defer close(exp.release)
		tr, err := newTracer(Config{spanExporter: exp, OTelSample: 1})
		require.NoError(t, err)
		start := time.Now()
		err = tr.shutdown()
		require.Error(t, err)
		require.True(t, errors.Is(err, context.DeadlineExceeded), "%v", err)
		require.Equal(t, tracerFlushTimeout, time.Since(start))
	})
}
