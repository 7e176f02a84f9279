package client_test

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/client"
)

// A PoolSize that New or SetConfig accepts must not make the first request
// panic: go-redis panics on a pool of more than MaxInt32 connections, so
// such a Config is refused like a negative one.
func TestPoolSizeBeyondPoolLimitRefused(t *testing.T) {
	addr := fakeRESP(t, func([]string) string { return "$1\r\nv\r\n" })
	sizes := []int{math.MaxInt}
	// The first size go-redis panics on, where int has room for it (not
	// on 32-bit platforms, where MaxInt is MaxInt32).
	if over := int64(math.MaxInt32) + 1; over <= math.MaxInt {
		sizes = append(sizes, int(over))
	}
	for _, size := range sizes {
		cfg := client.Config{Service: "s", Region: "eu", PoolSize: size}
		c, err := client.New(cfg)
		if err == nil { // accepted: the first request opens the pool
			require.NoError(t, c.SetRoutes(client.Routes{Direct: []string{addr}}))
			_, err := c.Get(context.Background(), "k")
			require.NoError(t, err, "PoolSize %d", size)
			require.NoError(t, c.Close())
		}
		require.ErrorIs(t, err, client.ErrInvalidConfig, "PoolSize %d", size)

		c, err = client.New(client.Config{Service: "s", Region: "eu"})
		require.NoError(t, err)
		require.ErrorIs(t, c.SetConfig(cfg), client.ErrInvalidConfig, "PoolSize %d", size)
		require.Equal(t, client.DefaultPoolSize, c.Config().PoolSize)
		require.NoError(t, c.Close())
	}
}
