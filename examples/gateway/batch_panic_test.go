package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// panicBackend is a backend whose calls panic while boom is set: a bug in
// a backend call, which the batcher recovers on whichever goroutine runs
// the batch.
type panicBackend struct {
	Backend
	boom *atomic.Bool
}

func (b panicBackend) Do(ctx context.Context, shard int, ops []op, out []opResult) error {
	if b.boom.Load() {
		panic("boom")
	}
	return b.Backend.Do(ctx, shard, ops, out)
}

// TestBatchPanicCountedAndLogged: a backend call that panics (a bug) is
// counted in INFO's request_panics and logged once with its stack, on the
// per-command path as on the plain pipelined one, and its commands answer
// ERR internal error; the connection goes on. The batcher's recovered
// *PanicError went to the client as an error line holding the whole
// goroutine stack (source paths included), and was counted and logged
// nowhere: connection_panics counts only panics on a connection's
// goroutine.
// With the caching tier on, the GETs' loads go through its fills: the
// panic is still counted and logged once.
func TestBatchPanicCountedAndLogged(t *testing.T) {
	for _, capacity := range []int{0, 100} {
		t.Run(fmt.Sprint("cache_capacity=", capacity), func(t *testing.T) {
			testBatchPanic(t, Config{HTTPAddr: "-", CacheCapacity: capacity})
		})
	}
}

func testBatchPanic(t *testing.T, cfg Config) {
	var logs syncBuffer
	in := startGatewayLog(t, cfg, slog.New(slog.NewTextHandler(&logs, nil)))
	g := in.gw
	boom := new(atomic.Bool)
	cb := g.backend.(*chaosBackend)
	cb.Backend = panicBackend{cb.Backend, boom}
	boom.Store(true)
	c := client(t, in, &redis.Options{PoolSize: 1})
	ctx := context.Background()
	noStack := func(err error) {
		t.Helper()
		require.Error(t, err)
		assert.Equal(t, errInternal.Error(), err.Error())
	}
	noStack(c.Get(ctx, "a").Err()) // per command: one batch
	noStack(c.MGet(ctx, "{t}a", "{t}b").Err())
	cmds, _ := c.Pipelined(ctx, func(p redis.Pipeliner) error { // a plain run: one batch
		p.Get(ctx, "{t}a")
		p.Get(ctx, "{t}b")
		return nil
	})
	for _, cmd := range cmds {
		noStack(cmd.Err())
	}
	boom.Store(false)
	require.NoError(t, c.Set(ctx, "a", "v", 0).Err(), "the connection goes on")
	info := c.Info(ctx, "stats").Val()
	assert.Contains(t, info, "request_panics:3\r\n")
	assert.Contains(t, info, "connection_panics:0\r\n")
	assert.Equal(t, 3, strings.Count(logs.String(), "panic on the request path"), logs.String())
	assert.Equal(t, 3, strings.Count(logs.String(), "panicBackend.Do"), "the stack, in the log")
}
