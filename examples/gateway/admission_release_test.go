package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// Every admitted request gives its admission back, however it fails: with
// an error (a backend timeout, a wrong type, a transaction refused or
// failed) or with a panic, which closes only its connection (serveConn).
// A command or an EXEC that panicked kept its cost in shed and its slot in
// the limiter for good: each such bug shrank the capacity until the gateway
// refused everything.
func TestFailedRequestsReleaseAdmission(t *testing.T) {
	boom := func(context.Context, *session, [][]byte) any { panic("boom") }
	incr, echo := commands["INCR"], commands["ECHO"]
	incrFn, echoFn := incr.fn, echo.fn
	t.Cleanup(func() { incr.fn, echo.fn = incrFn, echoFn }) // after the gateway's shutdown
	in := startGateway(t, Config{HTTPAddr: "-", MinLimit: 8, MaxLimit: 8, RequestTimeout: Duration(20 * time.Millisecond)})
	g := in.gw
	ctx := context.Background()
	c := client(t, in, nil)
	require.NoError(t, c.Set(ctx, "{t}s", "text", 0).Err())
	for range 4 {
		_, _ = c.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Incr(ctx, "{t}s")
			p.Set(ctx, "{t}a", "v", 0)
			return nil
		})
		_, _ = c.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, "{t}a", "v", 0)
			p.Set(ctx, "{u}a", "v", 0)
			return nil
		})
		_, _ = c.Pipelined(ctx, func(p redis.Pipeliner) error {
			for i := range 20 {
				p.Append(ctx, "{t}s", "x")
				p.Get(ctx, fmt.Sprint("k", i))
			}
			return nil
		})
		_ = c.Do(ctx, "KVSCAN", "b", "a").Err()
	}
	g.backend.(*chaosBackend).delay.Store(int64(time.Second))
	for range 4 {
		_ = c.Get(ctx, "x").Err()
		_ = c.MGet(ctx, "a", "b", "c", "d").Err()
		_, _ = c.Pipelined(ctx, func(p redis.Pipeliner) error {
			for i := range 20 {
				p.Get(ctx, fmt.Sprint("k", i))
				p.Set(ctx, fmt.Sprint("j", i), "v", 0)
			}
			return nil
		})
	}
	require.Zero(t, g.shedder.Stats().InFlight, "shed cost in flight after errors")
	require.Zero(t, g.limiter.Stats().InFlight, "limiter in flight after errors")

	g.backend.(*chaosBackend).delay.Store(0)
	incr.fn, echo.fn = boom, boom
	for range 10 {
		require.Error(t, c.Incr(ctx, "{t}n").Err())
		_, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, "{t}a", "v", 0)
			p.Echo(ctx, "x")
			return nil
		})
		require.Error(t, err)
	}
	require.Equal(t, int64(20), in.srv.panics.Load(), "every command ran (and panicked)")
	require.Zero(t, g.shedder.Stats().InFlight, "shed cost in flight after panics")
	require.Zero(t, g.limiter.Stats().InFlight, "limiter in flight after panics")
	incr.fn, echo.fn = incrFn, echoFn
	require.NoError(t, c.Set(ctx, "after", "v", 0).Err(), "the gateway still admits")
}
