package client

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPoolExhaustedDoesNotEject: go-redis fails a request with
// redis.ErrPoolExhausted when this client's own pool has reached its
// MaxActiveConns (the client sets it to PoolSize): a local condition, like
// redis.ErrPoolTimeout, not the host failing. It was taken for a host
// failure: the healthy host was ejected for EjectFor, moving all its keys to
// the next host, and the request retried there.
func TestPoolExhaustedDoesNotEject(t *testing.T) {
	assert.False(t, retryable(context.Background(), redis.ErrPoolExhausted), "pool exhausted is retryable")

	c, err := New(Config{Service: "svc", Region: "eu"})
	require.NoError(t, err)
	defer c.Close()
	cfg := c.Config()
	const addr = "127.0.0.1:1"
	err = c.attempt(context.Background(), addr, PathGateway, &cfg, func(context.Context, *redis.Client) error {
		return redis.ErrPoolExhausted
	})
	require.ErrorIs(t, err, redis.ErrPoolExhausted)
	assert.False(t, c.ejected(addr, c.now()), "the host was ejected for this client's full pool")
}
