package main

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestExecLocalCommandsCounted: the commands without keys that EXEC runs
// (PING, ECHO, UNWATCH) count in total_commands_processed, as they count
// outside a transaction and as Redis counts them: only the data commands
// did, so a PING between MULTI and EXEC was processed and counted nowhere.
func TestExecLocalCommandsCounted(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-"})
	g := in.gw
	ctx := context.Background()
	conn := client(t, in, nil).Conn()
	defer conn.Close()
	require.NoError(t, conn.Ping(ctx).Err())

	commands := g.n.commands.Load()
	require.NoError(t, conn.Ping(ctx).Err())
	assert.Equal(t, uint64(1), g.n.commands.Load()-commands, "a PING outside MULTI")

	commands, reqs := g.n.commands.Load(), g.tenants["default"].requests.Load()
	cmds, err := conn.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Ping(ctx)
		p.Echo(ctx, "e")
		p.Set(ctx, "k", "v", 0)
		p.Do(ctx, "UNWATCH")
		return nil
	})
	require.NoError(t, err)
	require.Len(t, cmds, 4)
	// MULTI, PING, ECHO, SET, UNWATCH and EXEC.
	assert.Equal(t, uint64(6), g.n.commands.Load()-commands, "total_commands_processed")
	assert.Equal(t, uint64(1), g.tenants["default"].requests.Load()-reqs, "the tenant's requests: the data command")
}
