package main

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGoRedisSetupErrorFailsWrites: when go-redis cannot set up a connection
// to the shard (its AUTH refused: a wrong password, for the default user or
// an ACL user), a pipelined batch fails with the refusal. go-redis
// returned the error without running the batch and left its commands without
// one: every SET was answered OK, and written nowhere.
func TestGoRedisSetupErrorFailsWrites(t *testing.T) {
	for _, c := range []struct {
		name, user, pass, want string
		args                   []string
	}{
		{"wrong password", "", "wrong-password", "WRONGPASS", []string{"--requirepass", backendPass}},
		{"acl user, wrong password", "gw", "wrong-password", "WRONGPASS",
			[]string{"--user", "default", "off", "--user", "gw", "on", ">" + backendPass, "~*", "+@all"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			shard := startRedisAs(t, c.user, backendPass, c.args...)
			in := startGateway(t, Config{Backend: BackendConfig{Kind: "redis", Redis: []string{shard.addr}, Pool: 2,
				Client: "go-redis", Username: c.user, Password: c.pass}})
			ctx := context.Background()
			gc := client(t, in, nil)
			for _, err := range []error{
				gc.Set(ctx, "k", "v", 0).Err(),
				gc.Set(ctx, "k", "v", time.Minute).Err(),
				gc.SetNX(ctx, "n", "v", 0).Err(),
				gc.Incr(ctx, "i").Err(),
				gc.Del(ctx, "k").Err(),
			} {
				require.Error(t, err)
				assert.Contains(t, err.Error(), c.want)
			}
			direct := redis.NewClient(&redis.Options{Addr: shard.addr, Username: c.user, Password: backendPass, MaxRetries: -1})
			defer direct.Close()
			assert.Equal(t, int64(0), direct.Exists(ctx, "k", "n", "i").Val(), "nothing written")

			// The caching tier's fills (MGET and PTTLs) fail each key with
			// the refusal too, not the batch with a miscount of MGET's reply.
			sc := newShardClient(shard.addr, 1, redisAuth{user: c.user, password: c.pass})
			defer sc.Close()
			out := make([]opResult, 2)
			require.NoError(t, getsWithTTL(ctx, sc, []string{"k", "n"}, out))
			for _, r := range out {
				require.Error(t, r.err)
				assert.Contains(t, r.err.Error(), c.want)
			}
		})
	}
}
