package main

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// noShards is a backend that reports no shards: a plain run then indexes
// past its parts (planPlain), a bug's panic after the run was admitted.
type noShards struct{ Backend }

func (noShards) Shards() int { return 0 }

// TestPlainRunPanicCountsAsFailed: a plain pipelined run that panics after
// its admission (a bug: serveConn closes the connection) counts each of its
// commands as a failed request, as a command that panics on the
// per-command path counts (TestPanicCountsAsFailedRequest): they were
// counted in the tenant's requests but missing from
// gateway_requests_total, its latency and the error count.
func TestPlainRunPanicCountsAsFailed(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-"})
	g := in.gw
	cb := g.backend.(*chaosBackend)
	cb.Backend = noShards{cb.Backend}
	c := client(t, in, nil)
	ctx := context.Background()
	errs := g.n.errors.Load()
	_, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.Get(ctx, "a")
		p.Set(ctx, "b", "v", 0)
		p.MGet(ctx, "c", "d")
		return nil
	})
	require.Error(t, err)
	require.Equal(t, int64(1), in.srv.panics.Load(), "the run panicked")
	for _, cmd := range []string{"GET", "SET", "MGET"} {
		assert.Equal(t, 1.0, requestCount(t, g, "default", cmd, "error"), "gateway_requests_total %s outcome error", cmd)
		assert.Equal(t, uint64(1), latencyCount(t, g, "default", cmd), "gateway_request_seconds %s", cmd)
	}
	assert.Equal(t, errs+3, g.n.errors.Load(), "errors")
	assert.Equal(t, uint64(3), g.tenants["default"].requests.Load(), "the tenant's requests")
	assert.Zero(t, g.shedder.Stats().InFlight, "shed cost in flight")
	assert.Zero(t, g.limiter.Stats().InFlight, "limiter in flight")
}
