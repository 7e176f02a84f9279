package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRedisACLUserWithoutClient: a shard whose ACL user may not run CLIENT
// (CLIENT SETNAME answers NOPERM) serves the gateway all the same, with
// either data-path client, transactions and the caching tier's feed; a user
// that may keeps the connections' names. Both clients and the feed failed
// their connection setup on the refused CLIENT SETNAME: every command
// failed with NOPERM, and with the caching tier the gateway did not start.
func TestRedisACLUserWithoutClient(t *testing.T) {
	for _, c := range []struct {
		name   string
		perms  string
		naming bool // the gateway's connections show their names in CLIENT LIST
	}{
		{"without client", "-client", false},
		{"with client", "+client", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			eachClient(t, func(t *testing.T, kind string) {
				shard := startRedisAs(t, "admin", backendPass, "--user", "default", "off",
					"--user", "admin", "on", ">"+backendPass, "~*", "&*", "+@all",
					"--user", "gw", "on", ">"+backendPass, "~*", "&*", "+@all", c.perms)
				in := startGateway(t, Config{Backend: BackendConfig{Kind: "redis", Redis: []string{shard.addr}, Pool: 2,
					Client: kind, Username: "gw", Password: backendPass,
					DialTimeout: loadedDialTimeout},
					CacheCapacity: 1000, CacheStaleness: Duration(time.Minute)})
				ctx := context.Background()
				gc := client(t, in, nil)
				admin := redis.NewClient(&redis.Options{Addr: shard.addr, Username: "admin", Password: backendPass, MaxRetries: -1})
				t.Cleanup(func() { _ = admin.Close() })

				require.NoError(t, gc.Set(ctx, "a", "1", 0).Err())
				require.NoError(t, gc.MSet(ctx, "b", "2", "c", "3").Err())
				assert.Equal(t, int64(2), gc.Incr(ctx, "a").Val())
				vals, err := gc.MGet(ctx, "a", "b", "none", "c").Result()
				require.NoError(t, err)
				assert.Equal(t, []any{"2", "2", nil, "3"}, vals)
				requireWatchAppendX(t, gc, "a")
				assert.Equal(t, "2x", admin.Get(ctx, "a").Val(), "the transaction committed")

				// The caching tier's feed sees a write made on the shard.
				requireFeedSeesShardWrite(t, in, gc, admin)

				list, err := admin.ClientList(ctx).Result()
				require.NoError(t, err)
				for _, name := range []string{"name=tierkit-gateway ", "name=tierkit-gateway-feed "} {
					assert.Equal(t, c.naming, strings.Contains(list, name), "%s in CLIENT LIST:\n%s", name, list)
				}
			})
		})
	}
}
