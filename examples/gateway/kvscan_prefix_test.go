package main

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// TestKVScanWholePrefix: a tenant confined to the prefix "shop:" may scan
// all of it, [shop:, shop;) (the range of every key with the prefix: ';'
// follows ':'), and any range inside it. The ACL check asked both bounds to
// have the prefix, so the one range that covers the prefix was refused with
// NOPERM, though every key in it is the tenant's. A range that reaches past
// the prefix is still refused.
func TestKVScanWholePrefix(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-", Tenants: []TenantConfig{
		{Name: "default"}, {Name: "shop", Password: "p", KeyPrefixes: []string{"shop:"}},
	}})
	ctx := context.Background()
	def := client(t, in, nil)
	for _, k := range []string{"shoo", "shop", "shop:", "shop:a", "shop:\xff\xff", "shop;", "shop;a", "shoq"} {
		require.NoError(t, def.Set(ctx, k, k, 0).Err())
	}
	shop := client(t, in, &redis.Options{Username: "shop", Password: "p"})
	res, err := shop.Do(ctx, "KVSCAN", "shop:", "shop;").Slice()
	require.NoError(t, err)
	require.Equal(t, []any{"shop:", "shop:", "shop:a", "shop:a", "shop:\xff\xff", "shop:\xff\xff"}, res)
	res, err = shop.Do(ctx, "KVSCAN", "shop:a", "shop;").Slice()
	require.NoError(t, err)
	require.Equal(t, []any{"shop:a", "shop:a", "shop:\xff\xff", "shop:\xff\xff"}, res)

	for _, r := range [][2]string{
		{"shop:", "shop;\x00"}, {"shop:", "shoq"}, {"shop:", ""}, {"shop", "shop;"}, {"sho", "shop:z"},
	} {
		require.ErrorContains(t, shop.Do(ctx, "KVSCAN", r[0], r[1]).Err(), "NOPERM", "KVSCAN %q %q", r[0], r[1])
	}
}

// prefixEnd's bound: the least string above every string with the prefix.
func TestPrefixEnd(t *testing.T) {
	for _, tc := range []struct{ p, end string }{
		{"shop:", "shop;"}, {"a\xff", "b"}, {"a\xff\xff", "b"}, {"\xff", ""}, {"", ""},
	} {
		got, ok := prefixEnd(tc.p)
		require.Equal(t, tc.end != "", ok, "%q", tc.p)
		require.Equal(t, tc.end, got, "%q", tc.p)
	}
}
