package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPanicCountsAsFailedRequest: a data command that panics (a bug: its
// connection is closed) counts as one request with outcome error, in
// gateway_requests_total, gateway_request_seconds and the gateway's error
// count, as its span does: only connection_panics counted it, and the
// command whose failures were looked for was missing from its own series.
func TestPanicCountsAsFailedRequest(t *testing.T) {
	incr := commands["INCR"]
	incrFn := incr.fn
	t.Cleanup(func() { incr.fn = incrFn }) // after the gateway's shutdown
	in := startGateway(t, Config{HTTPAddr: "-"})
	g := in.gw
	c := client(t, in, nil)
	ctx := context.Background()
	require.NoError(t, c.Incr(ctx, "n").Err())
	errs, ok := g.n.errors.Load(), requestCount(t, g, "default", "INCR", "ok")
	incr.fn = func(context.Context, *session, [][]byte) any { panic("boom") }
	require.Error(t, c.Incr(ctx, "n").Err())
	require.Equal(t, int64(1), in.srv.panics.Load())
	incr.fn = incrFn
	assert.Equal(t, 1.0, requestCount(t, g, "default", "INCR", "error"), "gateway_requests_total outcome error")
	assert.Equal(t, ok, requestCount(t, g, "default", "INCR", "ok"), "gateway_requests_total outcome ok")
	assert.Equal(t, uint64(2), latencyCount(t, g, "default", "INCR"), "gateway_request_seconds")
	assert.Equal(t, errs+1, g.n.errors.Load(), "errors")
}
