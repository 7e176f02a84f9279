package main

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// A plain pipeline run (GETs, SETs, MGETs) is admitted as one request at the
// cost of all its keys: one pass through shed and the limiter, not one per
// command. The commands are still counted one by one.
func TestPlainRunAdmittedOnce(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-"})
	g := in.gw
	ctx := context.Background()
	c := client(t, in, nil)
	require.NoError(t, c.Ping(ctx).Err())
	ten := g.tenants["default"]
	shed0, lim0, req0 := g.shedder.Stats(), g.limiter.Stats(), ten.requests.Load()
	_, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i := range 8 {
			k := fmt.Sprint("once", i)
			p.Set(ctx, k, "v", 0)
			p.Get(ctx, k+"x")
		}
		p.MGet(ctx, "m1", "m2", "m3")
		return nil
	})
	require.True(t, err == nil || err == redis.Nil, "pipeline: %v", err)
	shed1, lim1 := g.shedder.Stats(), g.limiter.Stats()
	require.Equal(t, uint64(17), ten.requests.Load()-req0, "commands counted one by one")
	require.Equal(t, int64(1), shed1.Admitted-shed0.Admitted, "shed admissions for the run")
	require.Equal(t, int64(8+8+3), shed1.AdmittedCost-shed0.AdmittedCost, "the run's cost: its keys")
	require.Equal(t, int64(1), lim1.Admitted-lim0.Admitted, "limiter admissions for the run")
	require.Equal(t, int64(1), lim1.Succeeded-lim0.Succeeded)
}

// A refused plain run refuses every command of it, and each counts.
func TestPlainRunRefusedWhole(t *testing.T) {
	cfg := Config{HTTPAddr: "-", Tenants: []TenantConfig{{Name: "slow", Password: "pw", QuotaRate: 0.001, QuotaBurst: 1}}}
	in := startGateway(t, cfg)
	g := in.gw
	ctx := context.Background()
	c := client(t, in, &redis.Options{Username: "slow", Password: "pw"})
	require.NoError(t, c.Set(ctx, "first", "v", 0).Err()) // spends the one backend call
	cmds, _ := c.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i := range 6 {
			p.Get(ctx, fmt.Sprint("q", i))
		}
		p.MGet(ctx, "a", "b")
		p.Set(ctx, "w", "v", 0)
		return nil
	})
	refused := 0
	for _, cmd := range cmds {
		if err := cmd.Err(); err != nil && strings.HasPrefix(err.Error(), "THROTTLED") {
			refused++
		}
	}
	require.Equal(t, 8, refused, "every command of the refused run answered THROTTLED")
	require.Equal(t, uint64(8), g.n.throttled.Load(), "throttled counts commands")
	require.Equal(t, uint64(8), g.tenants["slow"].throttled.Load())
}
