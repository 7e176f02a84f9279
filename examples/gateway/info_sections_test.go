package main

import (
	"context"
	"strconv"
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

// TestInfoForRedisCliStat: redis-cli --stat reads used_memory and
// blocked_clients; without them it printed LONG_MIN in its mem and blocked
// columns (found by a review).
func TestInfoForRedisCliStat(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-"})
	m, err := client(t, in, nil).InfoMap(context.Background()).Result()
	require.NoError(t, err)
	require.Equal(t, "0", m["Clients"]["blocked_clients"])
	used, err := strconv.ParseUint(m["Memory"]["used_memory"], 10, 64)
	require.NoError(t, err)
	require.Positive(t, used)
	require.Regexp(t, `^[0-9.]+[BKMG]$`, m["Memory"]["used_memory_human"])
	for _, tc := range []struct {
		n    uint64
		want string
	}{{0, "0B"}, {1023, "1023B"}, {1024, "1.00K"}, {1_184_890, "1.13M"}, {5 << 30, "5.00G"}, {3 << 40, "3072.00G"}} {
		require.Equal(t, tc.want, humanBytes(tc.n))
	}
}
