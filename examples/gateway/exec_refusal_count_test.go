package main

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestExecThrottledCountsCommands: an EXEC refused over quota answers its
// data commands with THROTTLED, and they count in the tenant's requests and
// the errors (observeQueued); they count as throttled too, as the commands
// of a refused pipeline run do, in the tenant's throttled and
// gateway_throttled_total. The refusal counted once per EXEC: a tenant
// whose three commands were all refused read requests=3, throttled=1.
func TestExecThrottledCountsCommands(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-", Tenants: []TenantConfig{{Name: "default", QuotaRate: 0.001, QuotaBurst: 1}}})
	g := in.gw
	ctx := context.Background()
	c := client(t, in, nil)
	require.NoError(t, c.Set(ctx, "{x}a", "1", 0).Err()) // spends the burst
	ten := g.tenants["default"]
	reqs, errs, throttled, all := ten.requests.Load(), g.n.errors.Load(), ten.throttled.Load(), g.n.throttled.Load()

	_, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, "{x}a", "2", 0)
		p.Get(ctx, "{x}a")
		p.Incr(ctx, "{x}b")
		return nil
	})
	require.ErrorContains(t, err, "THROTTLED")
	assert.Equal(t, uint64(3), ten.requests.Load()-reqs, "the tenant's requests")
	assert.Equal(t, uint64(3), g.n.errors.Load()-errs, "errors")
	assert.Equal(t, uint64(3), ten.throttled.Load()-throttled, "the tenant's throttled")
	assert.Equal(t, uint64(3), g.n.throttled.Load()-all, "gateway_throttled_total")
}
