package main

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// TestInfoTenantsShowsOwnTenantOnly: INFO's Tenants section is the caller's
// own tenant's line. It had a line per tenant, so any tenant read every
// other tenant's name (the usernames AUTH takes) and traffic; with an open
// default tenant, so did anyone who could connect, the leak NOAUTH closes
// for a gateway without one (TestNoAuthRefusesAllButAuth). Every tenant's
// counters are on /metrics and /control, the operator's side.
func TestInfoTenantsShowsOwnTenantOnly(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-", Tenants: []TenantConfig{
		{Name: "default"}, {Name: "shop", Password: "s3cret"},
	}})
	ctx := context.Background()
	shop := client(t, in, &redis.Options{Username: "shop", Password: "s3cret"})
	require.ErrorIs(t, shop.Get(ctx, "k").Err(), redis.Nil)

	anon := client(t, in, nil).Info(ctx, "tenants").Val()
	require.Contains(t, anon, "tenant_default:requests=0,")
	require.NotContains(t, anon, "shop", "an unauthenticated client reads another tenant's name")

	own := shop.Info(ctx).Val()
	require.Contains(t, own, "tenant_shop:requests=1,")
	require.NotContains(t, own, "tenant_default", "a tenant reads another tenant's counters")
}
