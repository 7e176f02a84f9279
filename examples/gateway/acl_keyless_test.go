package main

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestACLCommandsScope pins down what a tenant's "commands" list restricts,
// as the README documents it: the data commands (the reads and writes of
// keys, KVSCAN included) and WATCH, each refused with -NOPERM when the list
// omits it (inside MULTI too, which then fails EXEC with EXECABORT); the
// connection, introspection and transaction-control commands (AUTH, HELLO,
// QUIT, RESET, SELECT, CLIENT, PING, ECHO, INFO, CONFIG GET, COMMAND,
// MULTI, EXEC, DISCARD, UNWATCH) are always allowed, since they touch no key
// and a transaction can only run commands the list allows.
func TestACLCommandsScope(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-", Tenants: []TenantConfig{
		{Name: "ro", Password: "r", Commands: []string{"GET"}},
	}})
	ctx := context.Background()
	ro := client(t, in, &redis.Options{Username: "ro", Password: "r", ClientName: "ro-conn"})
	c := ro.Conn()
	defer c.Close()

	for _, args := range [][]any{
		{"SET", "k", "v"}, {"MGET", "k"}, {"EXISTS", "k"}, {"DEL", "k"}, {"INCR", "k"},
		{"KVSCAN", "", ""}, {"KVSCAN", "a", "b"}, {"WATCH", "k"},
	} {
		err := c.Do(ctx, args...).Err()
		require.Error(t, err, "%v", args)
		assert.Contains(t, err.Error(), "NOPERM", "%v: a command the list omits is refused with NOPERM", args)
	}
	denied := in.gw.tenants["ro"].denied.Load()
	assert.Equal(t, uint64(8), denied, "each refusal counts as a denial")

	// Always allowed: connection management, introspection, transaction control.
	require.Equal(t, "PONG", c.Ping(ctx).Val())
	require.Equal(t, "hi", c.Echo(ctx, "hi").Val())
	require.NoError(t, c.Do(ctx, "SELECT", "0").Err())
	require.Equal(t, "ro-conn", c.ClientGetName(ctx).Val())
	require.NoError(t, c.Do(ctx, "CLIENT", "SETNAME", "other").Err())
	require.NoError(t, c.Info(ctx, "server").Err())
	require.NoError(t, c.ConfigGet(ctx, "maxmemory").Err())
	require.NoError(t, c.Do(ctx, "COMMAND", "COUNT").Err())
	require.NoError(t, c.Do(ctx, "AUTH", "ro", "r").Err())
	require.NoError(t, c.Do(ctx, "HELLO", "3").Err())
	require.NoError(t, c.Do(ctx, "UNWATCH").Err())
	require.NoError(t, c.Do(ctx, "MULTI").Err())
	require.NoError(t, c.Do(ctx, "DISCARD").Err())
	// A transaction runs only what the list allows.
	cmds, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Get(ctx, "k")
		return nil
	})
	require.ErrorIs(t, err, redis.Nil, "GET inside MULTI is allowed")
	require.Len(t, cmds, 1)
	var set *redis.StatusCmd
	_, err = c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Get(ctx, "k")
		set = p.Set(ctx, "k", "v", 0)
		return nil
	})
	require.ErrorContains(t, err, "EXECABORT", "a refused command fails the transaction")
	require.ErrorContains(t, set.Err(), "NOPERM", "SET inside MULTI is refused")
	require.ErrorContains(t, c.Get(ctx, "k").Err(), "nil", "and nothing was written")
	require.NoError(t, c.Do(ctx, "RESET").Err())
	require.NoError(t, c.Do(ctx, "QUIT").Err())
}
