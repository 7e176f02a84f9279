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

// TestRedisACLRevokedThenRestored: a shard whose ACL user loses a
// permission while the gateway runs fails the commands that need it with
// the shard's NOPERM, on that shard only, and serves again once the
// permission is back, without a restart: a data command (GET, SET), and
// CLIENT, which every new connection's setup sends (its connections are
// cut, so they are dialed again while it is refused), which the shard's
// connections serve without (as TestRedisACLUserWithoutClient). With
// rueidis, the client dialed named sent CLIENT SETNAME again on each
// connection it dialed anew: with CLIENT refused, every batch on one failed
// with the NOPERM until CLIENT was allowed again.
func TestRedisACLRevokedThenRestored(t *testing.T) {
	for _, c := range []struct {
		name, revoke, restore string
		reconnect             bool // cut the gateway's connections to the shard after the revocation
		refused               bool // the shard's keys fail while revoked
	}{
		{"data commands", "-get -mget -set -mset", "+get +mget +set +mset", false, true},
		{"data commands, reconnected", "-get -mget -set -mset", "+get +mget +set +mset", true, true},
		{"client, reconnected", "-client", "+client", true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			eachClient(t, func(t *testing.T, kind string) {
				var addrs []string
				var admins []*redis.Client
				for range 2 {
					s := startRedisAs(t, "admin", backendPass, "--user", "default", "off",
						"--user", "admin", "on", ">"+backendPass, "~*", "&*", "+@all",
						"--user", "gw", "on", ">"+backendPass, "~*", "&*", "+@all")
					addrs = append(addrs, s.addr)
					a := redis.NewClient(&redis.Options{Addr: s.addr, Username: "admin", Password: backendPass, MaxRetries: -1})
					t.Cleanup(func() { _ = a.Close() })
					admins = append(admins, a)
				}
				in := startGateway(t, Config{Backend: BackendConfig{Kind: "redis", Redis: addrs, Pool: 2,
					Client: kind, Username: "gw", Password: backendPass}})
				ctx := context.Background()
				gc := client(t, in, nil)
				keys := keysOn(in, 2)
				for _, k := range keys {
					require.NoError(t, gc.Set(ctx, k, "v", 0).Err())
				}

				acl := func(rules string) {
					t.Helper()
					args := []any{"ACL", "SETUSER", "gw"}
					for _, r := range strings.Fields(rules) {
						args = append(args, r)
					}
					require.NoError(t, admins[0].Do(ctx, args...).Err())
					if c.reconnect {
						require.NoError(t, admins[0].Do(ctx, "CLIENT", "KILL", "USER", "gw").Err())
					}
				}
				serves := func() bool { return gc.Get(ctx, keys[0]).Val() == "v" }

				acl(c.revoke)
				if c.refused {
					// The first batch after a cut may meet the closed
					// connection: wait for the shard's own refusal.
					eventuallyWithin(t, 5*time.Second, "no NOPERM from shard 0", func() bool {
						err := gc.Get(ctx, keys[0]).Err()
						return err != nil && strings.HasPrefix(err.Error(), "NOPERM")
					})
					err := gc.Set(ctx, keys[0], "w", 0).Err()
					require.Error(t, err)
					assert.Contains(t, err.Error(), "NOPERM")
				} else {
					eventuallyWithin(t, 5*time.Second, "shard 0 does not serve with CLIENT refused", serves)
					assert.NoError(t, gc.Set(ctx, keys[0], "v", 0).Err())
				}
				// The other shard serves throughout.
				assert.Equal(t, "v", gc.Get(ctx, keys[1]).Val())
				assert.NoError(t, gc.Set(ctx, keys[1], "v", 0).Err())

				acl(c.restore)
				eventuallyWithin(t, 5*time.Second, "shard 0 does not serve once the permission is back", serves)
				assert.NoError(t, gc.Set(ctx, keys[0], "v2", 0).Err())
				assert.Equal(t, "v2", gc.Get(ctx, keys[0]).Val())
			})
		})
	}
}
