package main

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNoAuthRefusesAllButAuth: without an open tenant, an unauthenticated
// connection may only authenticate (AUTH, HELLO with AUTH), QUIT or RESET,
// as on a Redis whose default user needs a password; every other command
// answers -NOAUTH. INFO answered, and its Tenants section gave every
// tenant's name (the usernames AUTH takes) and traffic to anyone who could
// connect.
func TestNoAuthRefusesAllButAuth(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-", Tenants: []TenantConfig{
		{Name: "shop", Password: "s3cret"},
	}})
	ctx := context.Background()
	anon := client(t, in, &redis.Options{Protocol: 2})
	c := anon.Conn()
	defer c.Close()
	for _, args := range [][]any{
		{"INFO"}, {"INFO", "tenants"}, {"PING"}, {"ECHO", "x"}, {"CLIENT", "INFO"}, {"CLIENT", "SETNAME", "n"},
		{"CONFIG", "GET", "*"}, {"COMMAND", "COUNT"}, {"SELECT", "0"}, {"MULTI"}, {"WATCH", "k"}, {"GET", "k"},
		{"HELLO", "3"},
	} {
		err := c.Do(ctx, args...).Err()
		require.Error(t, err, "%v", args)
		assert.Contains(t, err.Error(), "NOAUTH", "%v", args)
	}
	require.NoError(t, c.Do(ctx, "RESET").Err())
	require.ErrorContains(t, c.Do(ctx, "AUTH", "shop", "wrong").Err(), "WRONGPASS")
	require.ErrorContains(t, c.Do(ctx, "INFO").Err(), "NOAUTH", "a failed AUTH authenticates nobody")
	require.NoError(t, c.Do(ctx, "HELLO", "2", "AUTH", "shop", "s3cret").Err())
	require.NoError(t, c.Do(ctx, "INFO", "tenants").Err())
	require.NoError(t, c.Do(ctx, "QUIT").Err())
}
