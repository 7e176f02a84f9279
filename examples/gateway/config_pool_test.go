package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestConfigRedisPoolBound: a Redis pool too large for a client to size is
// refused at start with an error naming the pool. It was taken, and the
// gateway then panicked opening the backend (go-redis refuses a PoolSize
// above 2^31-1 with a panic, and sizes its pool's structures by it at
// construction, so one just under that asked for gigabytes per shard). The
// largest pool accepted opens its clients.
func TestConfigRedisPoolBound(t *testing.T) {
	for _, pool := range []string{"1000000000000", "2147483647", "100000000"} {
		t.Run(pool, func(t *testing.T) {
			c, err := decodeConfig([]byte(`{"backend": {"kind": "redis", "redis": ["127.0.0.1:1"], "pool": ` + pool + `}}`))
			require.NoError(t, err)
			_, err = c.withDefaults()
			require.ErrorContains(t, err, "backend pool "+pool)
		})
	}
	for _, client := range redisClients {
		c, err := Config{Backend: BackendConfig{Kind: "redis", Redis: []string{"127.0.0.1:1"}, Pool: maxPool, Client: client}}.withDefaults()
		require.NoError(t, err)
		b, err := openBackend(c) // dials nothing yet
		require.NoError(t, err)
		require.NoError(t, b.Close())
	}
}
