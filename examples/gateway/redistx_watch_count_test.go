package main

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRedisWatchCountsAsARequest: on Redis shards WATCH reads its keys'
// states and is admitted as a read of them (TestRedisWatchAdmitted), so it
// counts as a read does: in the tenant's requests, and refused, in the
// errors and the throttled counts too, as a GET refused over quota, a
// refused pipeline run's commands and a refused EXEC's
// (TestExecThrottledCountsCommands) do. A refused WATCH raised the throttled
// counts alone: a tenant looping refused WATCHes read throttled above its
// requests.
func TestRedisWatchCountsAsARequest(t *testing.T) {
	r := startRedis(t)
	in := startGateway(t, Config{HTTPAddr: "-", Backend: BackendConfig{Kind: "redis", Redis: []string{r.addr}, Pool: 2},
		Tenants: []TenantConfig{{Name: "default", QuotaRate: 0.001, QuotaBurst: 2}}})
	g := in.gw
	ctx := context.Background()
	c := client(t, in, nil).Conn()
	defer c.Close()
	ten := g.tenants["default"]
	type counts struct{ requests, errors, throttled, all uint64 }
	read := func() counts {
		return counts{ten.requests.Load(), g.n.errors.Load(), ten.throttled.Load(), g.n.throttled.Load()}
	}
	delta := func(a, b counts) counts {
		return counts{b.requests - a.requests, b.errors - a.errors, b.throttled - a.throttled, b.all - a.all}
	}

	s0 := read()
	require.NoError(t, c.Do(ctx, "WATCH", "{w}a").Err()) // one call of the burst
	require.NoError(t, c.Do(ctx, "UNWATCH").Err())
	s1 := read()
	assert.Equal(t, counts{requests: 1}, delta(s0, s1), "an admitted WATCH")

	require.ErrorIs(t, c.Get(ctx, "{w}a").Err(), redis.Nil) // the rest of the burst
	s2 := read()
	require.ErrorContains(t, c.Get(ctx, "{w}a").Err(), "THROTTLED")
	s3 := read()
	want := counts{requests: 1, errors: 1, throttled: 1, all: 1}
	require.Equal(t, want, delta(s2, s3), "a GET refused over quota")

	require.ErrorContains(t, c.Do(ctx, "WATCH", "{w}a").Err(), "THROTTLED")
	assert.Equal(t, want, delta(s3, read()), "a WATCH refused over quota counts as the GET")
}
