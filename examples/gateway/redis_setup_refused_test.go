package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSetupRefusalAnswersAsShardReply: a shard that refuses the data path's
// login (a wrong password) has answered, on both clients: each command fails
// with the shard's own WRONGPASS (nothing was applied, so the outcome is
// known) and the shard is not counted unreachable. go-redis did so;
// rueidis, whose refusal comes from its dial, wrapped it and failed the
// batch: `-ERR backend shard 0: redis ADDR: WRONGPASS ...` (the form of an
// unknown outcome), the shard marked down and logged unreachable.
func TestSetupRefusalAnswersAsShardReply(t *testing.T) {
	eachClient(t, func(t *testing.T, kind string) {
		shard := startRedisAs(t, "", backendPass, "--requirepass", backendPass)
		in := startGateway(t, Config{Backend: BackendConfig{Kind: "redis", Redis: []string{shard.addr}, Pool: 2,
			Client: kind, Password: "wrong-password"}})
		ctx := context.Background()
		c := client(t, in, nil)
		for _, err := range []error{
			c.Get(ctx, "k").Err(),
			c.Set(ctx, "k", "v", 0).Err(),
			c.Set(ctx, "k", "v", time.Minute).Err(),
			c.Incr(ctx, "i").Err(),
		} {
			require.Error(t, err)
			assert.True(t, strings.HasPrefix(err.Error(), "WRONGPASS "), "the shard's reply, as it answered it: %v", err)
		}
		assert.False(t, in.gw.health[0].down.Load(), "the shard answered: not marked down")
		assert.Zero(t, in.gw.health[0].failed.Load(), "no failed batch")
	})
}
