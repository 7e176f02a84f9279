package main

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// A command refused by the limiter's memory guard says so, rather than that
// the gateway is at its admission limit (which may be far from reached), and
// counts as overloaded as a refusal at the limit does.
func TestMemoryGuardRefusalSaysMemory(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-"})
	g := in.gw
	ctx := context.Background()
	g.mu.Lock()
	cfg := g.aimdCfg
	g.mu.Unlock()
	cfg.MemoryLimit = 1 << 20
	cfg.HeapBytes = func() uint64 { return 1 << 30 }
	require.NoError(t, g.limiter.SetConfig(cfg))
	require.NoError(t, g.limiter.Tick(time.Now()))
	require.True(t, g.limiter.Stats().MemoryHigh)

	c := client(t, in, nil)
	err := c.Get(ctx, "k").Err()
	require.ErrorContains(t, err, "OVERLOADED")
	require.ErrorContains(t, err, "memory")
	_, err = c.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.Get(ctx, "a")
		p.Set(ctx, "b", "v", 0)
		return nil
	})
	require.ErrorContains(t, err, "memory")
	_, err = c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, "{t}a", "v", 0)
		p.Set(ctx, "{t}b", "v", 0)
		return nil
	})
	require.ErrorContains(t, err, "memory")
	require.Equal(t, uint64(1+2+2), g.n.overloaded.Load(), "each command refused counts overloaded")
}
