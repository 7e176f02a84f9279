package main

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestExecReadFailureAppliesNothing: on a Redis shard each read inside EXEC
// is a round trip of its own; one that fails on the way (here the shard
// refuses the PEXPIRETIME the read sends, as it would fail on a dropped
// connection) fails the whole EXEC, and none of the transaction's writes is
// applied. Before, the failed read answered its command's error in EXEC's
// reply and the commit applied the other commands' writes: the transaction
// was half applied, which Redis's EXEC never does.
func TestExecReadFailureAppliesNothing(t *testing.T) {
	gw, direct := redisTxSetup(t)
	ctx := context.Background()
	require.NoError(t, direct.Set(ctx, "{f}n", "1", 0).Err())
	require.NoError(t, direct.Do(ctx, "ACL", "SETUSER", "default", "-pexpiretime").Err())
	t.Cleanup(func() { direct.Do(context.Background(), "ACL", "SETUSER", "default", "+pexpiretime") })

	cmds, err := gw.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, "{f}written", "x", 0)
		p.Incr(ctx, "{f}n") // its read fails
		return nil
	})
	require.Error(t, err)
	for _, c := range cmds {
		assert.Error(t, c.Err(), "%v: EXEC answered one command alone", c.Args())
	}
	require.ErrorIs(t, direct.Get(ctx, "{f}written").Err(), redis.Nil, "a write of a failed EXEC was applied")
	assert.Equal(t, "1", direct.Get(ctx, "{f}n").Val())
}
