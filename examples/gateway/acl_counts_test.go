package main

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A WATCH refused by the tenant's ACL (a key outside its prefixes, or
// WATCH not among its commands) is a denial like any other command's:
// INFO's denied_total and the tenant's denied count it. cmdWatch answered
// NOPERM without counting it.
func TestWatchDenialCounted(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-", Tenants: []TenantConfig{
		{Name: "default"},
		{Name: "shop", Password: "p", KeyPrefixes: []string{"shop:"}},
		{Name: "ro", Password: "r", Commands: []string{"GET"}},
	}})
	ctx := context.Background()
	shop := client(t, in, &redis.Options{Username: "shop", Password: "p"})
	require.ErrorContains(t, shop.Do(ctx, "WATCH", "bank:1").Err(), "NOPERM")
	ro := client(t, in, &redis.Options{Username: "ro", Password: "r"})
	require.ErrorContains(t, ro.Do(ctx, "WATCH", "x").Err(), "NOPERM")
	assert.Equal(t, uint64(1), in.gw.tenants["shop"].denied.Load(), "shop's denied")
	assert.Equal(t, uint64(1), in.gw.tenants["ro"].denied.Load(), "ro's denied")
	assert.Equal(t, uint64(2), in.gw.n.denied.Load(), "denied_total")
}
