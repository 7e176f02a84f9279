package main

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/txn"
)

// TestExecPanicCountsQueuedAsFailed: a transaction whose run panics (a bug:
// its connection is closed) counts its queued data commands as failed
// requests, as a command that panics outside MULTI counts: they were missing
// from gateway_requests_total, its latency and the error count.
func TestExecPanicCountsQueuedAsFailed(t *testing.T) {
	echo := commands["ECHO"]
	echoFn := echo.fn
	t.Cleanup(func() { echo.fn = echoFn }) // after the gateway's shutdown
	in := startGateway(t, Config{HTTPAddr: "-"})
	g := in.gw
	c := client(t, in, nil)
	ctx := context.Background()
	require.NoError(t, c.Ping(ctx).Err())
	errs := g.n.errors.Load()
	echo.fn = func(context.Context, *session, [][]byte) any { panic("boom") }
	_, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, "{t}a", "v", 0)
		p.Echo(ctx, "x")
		return nil
	})
	require.Error(t, err)
	require.Equal(t, int64(1), in.srv.panics.Load())
	echo.fn = echoFn
	assert.Equal(t, 1.0, requestCount(t, g, "default", "SET", "error"), "gateway_requests_total outcome error")
	assert.Equal(t, uint64(1), latencyCount(t, g, "default", "SET"), "gateway_request_seconds")
	assert.Equal(t, errs+1, g.n.errors.Load(), "errors")
	assert.Equal(t, uint64(1), g.tenants["default"].requests.Load(), "the tenant's requests")
}

// panicEngine is a txn engine whose reads panic.
type panicEngine struct{ txn.Engine }

func (panicEngine) ReadVersion() uint64 { return 1 }

func (panicEngine) Get(context.Context, uint64, []byte) ([]byte, bool, error) { panic("boom") }

// TestTxReadPanicCountsAsFailed: a read after WATCH (callTx) that panics
// counts as a failed request, as the same read outside a transaction does,
// and gives its admission back.
func TestTxReadPanicCountsAsFailed(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-"})
	g := in.gw
	tn := g.tenants["default"]
	s := &session{g: g, tenant: tn, proto: 2}
	eng := panicEngine{}
	tx, err := txn.Begin(eng, txn.Options{})
	require.NoError(t, err)
	s.txs.tx, s.txs.eng, s.txs.shard = tx, eng, g.shard("k")
	errs := g.n.errors.Load()
	args := [][]byte{[]byte("GET"), []byte("k")}
	spec, name, bad := s.lookup(args)
	require.Nil(t, bad)
	require.PanicsWithValue(t, "boom", func() { s.call(spec, name, args) })
	assert.Equal(t, 1.0, requestCount(t, g, "default", "GET", "error"), "gateway_requests_total outcome error")
	assert.Equal(t, uint64(1), latencyCount(t, g, "default", "GET"), "gateway_request_seconds")
	assert.Equal(t, errs+1, g.n.errors.Load(), "errors")
	assert.Zero(t, g.shedder.Stats().InFlight, "shed cost in flight")
	assert.Zero(t, g.limiter.Stats().InFlight, "limiter in flight")
}
