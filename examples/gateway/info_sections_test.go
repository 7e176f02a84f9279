package main

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// TestInfoSeveralSections: INFO with several sections answers each of them,
// as Redis (7.0 on) does and as go-redis's Info(ctx, "server", "clients")
// and InfoMap ask. Only the first was answered: the client found the
// others' fields missing.
func TestInfoSeveralSections(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-"})
	for _, proto := range []int{2, 3} {
		c := client(t, in, &redis.Options{Protocol: proto})
		m, err := c.InfoMap(context.Background(), "server", "CLIENTS", "tenants").Result()
		require.NoError(t, err)
		require.Contains(t, m, "Server")
		require.Contains(t, m, "Clients")
		require.Contains(t, m, "Tenants")
		require.NotContains(t, m, "Stats", "a section not asked for")
		require.Equal(t, "7.2.0", m["Server"]["redis_version"])
		require.NotEmpty(t, m["Clients"]["connected_clients"])
		require.Contains(t, m["Tenants"], "tenant_default")
	}
}
