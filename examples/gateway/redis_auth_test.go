package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// backendPass is the shards' password in these tests: distinctive, so that a
// log line or a reply that shows it is found.
const backendPass = "pw-9f3c-Sh4rdSecret"

// authShards are the two ways a shard asks for a login: the default user's
// password (requirepass), and an ACL user with the default user off.
var authShards = []struct {
	name string
	user string
	args []string // the server's own; a replica adds its login to the primary
}{
	{"requirepass", "", []string{"--requirepass", backendPass}},
	{"acl", "gw", []string{"--user", "default", "off", "--user", "gw", "on", ">" + backendPass, "~*", "&*", "+@all"}},
}

// TestRedisBackendAuth: on shards that require a login, the gateway logs in
// on every connection it makes: both data-path clients (GET, SET, MGET), the
// transactions' pool (WATCH/MULTI/EXEC), a replica's reads, and the caching
// tier's feed and markers (a write made on the shard directly reaches the
// cache). Without the login each of them met NOAUTH.
func TestRedisBackendAuth(t *testing.T) {
	for _, s := range authShards {
		t.Run(s.name, func(t *testing.T) {
			eachClient(t, func(t *testing.T, kind string) {
				// No diskless-sync delay: the replica syncs at once.
				primary := startRedisAs(t, s.user, backendPass, append([]string{"--repl-diskless-sync-delay", "0"}, s.args...)...)
				host, port, _ := strings.Cut(primary.addr, ":")
				replArgs := append([]string{"--replicaof", host, port, "--masterauth", backendPass}, s.args...)
				if s.user != "" {
					replArgs = append(replArgs, "--masteruser", s.user)
				}
				replica := startRedisAs(t, s.user, backendPass, replArgs...)
				eventually(t, "replica did not sync", func() bool { return replica.info(t, "replication", "master_link_status") == "up" })
				backend := BackendConfig{Kind: "redis", Redis: []string{primary.addr}, Replicas: [][]string{{replica.addr}},
					Pool: 2, Client: kind, Username: s.user, Password: backendPass}
				in := startGateway(t, Config{Backend: backend})
				ctx := context.Background()
				c := client(t, in, nil)

				require.NoError(t, c.Set(ctx, "a", "1", 0).Err())
				require.NoError(t, c.MSet(ctx, "b", "2", "c", "3").Err())
				direct := redis.NewClient(&redis.Options{Addr: replica.addr, Username: s.user, Password: backendPass, MaxRetries: -1})
				t.Cleanup(func() { _ = direct.Close() })
				eventually(t, "writes did not replicate", func() bool { return direct.Get(ctx, "c").Val() == "3" })
				before := replicaReads(t, replica)
				require.Equal(t, "1", c.Get(ctx, "a").Val())
				vals, err := c.MGet(ctx, "a", "b", "none", "c").Result()
				require.NoError(t, err)
				assert.Equal(t, []any{"1", "2", nil, "3"}, vals)
				assert.Greater(t, replicaReads(t, replica), before, "the replica served reads")

				requireWatchAppendX(t, c, "a")
				pc := redis.NewClient(&redis.Options{Addr: primary.addr, Username: s.user, Password: backendPass, MaxRetries: -1})
				t.Cleanup(func() { _ = pc.Close() })
				assert.Equal(t, "1x", pc.Get(ctx, "a").Val(), "the transaction committed")

				// The caching tier: its feed sees a write made on the shard.
				backend.Replicas = nil
				cin := startGateway(t, Config{Backend: backend, CacheCapacity: 1000, CacheStaleness: Duration(time.Minute)})
				cc := client(t, cin, nil)
				requireFeedSeesShardWrite(t, cin, cc, pc)
			})
		})
	}
}

// requireWatchAppendX runs, through the gateway, a WATCH of key, a GET of
// it and a MULTI/EXEC that sets it to its value plus "x", which must commit.
func requireWatchAppendX(t *testing.T, c *redis.Client, key string) {
	t.Helper()
	ctx := context.Background()
	err := c.Watch(ctx, func(tx *redis.Tx) error {
		v, err := tx.Get(ctx, key).Result()
		if err != nil {
			return err
		}
		_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, key, v+"x", 0)
			return nil
		})
		return err
	}, key)
	require.NoError(t, err)
}

// requireFeedSeesShardWrite: through gw (the gateway in, caching tier on) a
// cached key "ck" reads the value a SET made directly on the shard (shard,
// a client of it) wrote, once the feed has delivered it.
func requireFeedSeesShardWrite(t *testing.T, in *instance, gw, shard *redis.Client) {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, gw.Set(ctx, "ck", "v1", 0).Err())
	syncFeed(t, in)
	require.Equal(t, "v1", gw.Get(ctx, "ck").Val())
	require.Equal(t, "v1", gw.Get(ctx, "ck").Val()) // a hit
	require.NoError(t, shard.Set(ctx, "ck", "v2", 0).Err())
	eventually(t, "a direct SET did not reach the cache", func() bool { return gw.Get(ctx, "ck").Val() == "v2" })
}

// replicaReads is the MGETs r has run.
func replicaReads(t *testing.T, r *redisServer) int {
	t.Helper()
	v := r.info(t, "commandstats", "cmdstat_mget")
	calls, _, _ := strings.Cut(strings.TrimPrefix(v, "calls="), ",")
	var n int
	if calls != "" {
		_, err := fmt.Sscan(calls, &n)
		require.NoError(t, err)
	}
	return n
}

// TestRedisBackendWrongPassword: with a wrong password the shard's commands
// fail with the server's WRONGPASS, and the password shows nowhere: not in
// the replies, the log (debug lines included), INFO, CONFIG GET or /control.
func TestRedisBackendWrongPassword(t *testing.T) {
	const wrong = "wrong-7e1d-NotThePassword"
	eachClient(t, func(t *testing.T, kind string) {
		shard := startRedisAs(t, "", backendPass, "--requirepass", backendPass)
		var logs syncBuffer
		log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
		in := startGatewayLog(t, Config{Backend: BackendConfig{Kind: "redis", Redis: []string{shard.addr}, Pool: 2,
			Client: kind, Password: wrong}}, log)
		ctx := context.Background()
		c := client(t, in, nil)
		var seen []string
		for _, err := range []error{c.Get(ctx, "k").Err(), c.MGet(ctx, "k", "j").Err()} {
			require.Error(t, err)
			assert.Contains(t, err.Error(), "WRONGPASS")
			seen = append(seen, err.Error())
		}
		info, err := c.Info(ctx, "everything").Result()
		require.NoError(t, err)
		conf, err := c.ConfigGet(ctx, "*").Result()
		require.NoError(t, err)
		seen = append(seen, info, fmt.Sprint(conf))
		resp, err := http.Get("http://" + in.httpLn.Addr().String() + "/control/")
		require.NoError(t, err)
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		seen = append(seen, string(body), logs.String())
		for _, s := range seen {
			assert.NotContains(t, s, wrong)
		}

		// With the caching tier, the start fails: the tier cannot check the
		// shard's notifications.
		_, err = start(Config{Addr: "127.0.0.1:0", HTTPAddr: "-", CacheCapacity: 10, Backend: BackendConfig{
			Kind: "redis", Redis: []string{shard.addr}, Pool: 2, Client: kind, Password: wrong}}, log)
		require.ErrorContains(t, err, "WRONGPASS")
		assert.NotContains(t, err.Error(), wrong)
		assert.NotContains(t, logs.String(), wrong)
	})
}

// TestBackendCredentialsConfig: the backend's password comes from the file or
// from the environment variable password_env names, not both; a username
// needs a password; the memkv backend takes neither. No error shows the
// password.
func TestBackendCredentialsConfig(t *testing.T) {
	t.Setenv("GATEWAY_TEST_SHARD_PASSWORD", backendPass)
	t.Setenv("GATEWAY_TEST_EMPTY", "")
	cfg, err := decodeConfig([]byte(`{"backend": {"kind": "redis", "redis": ["127.0.0.1:7001"], "username": "gw",
		"password_env": "GATEWAY_TEST_SHARD_PASSWORD"}}`))
	require.NoError(t, err)
	cfg, err = cfg.withDefaults()
	require.NoError(t, err)
	assert.Equal(t, "gw", cfg.Backend.Username)
	assert.Equal(t, backendPass, cfg.Backend.Password)
	again, err := cfg.withDefaults()
	require.NoError(t, err, "idempotent")
	assert.Equal(t, backendPass, again.Backend.Password)

	redis := func(b BackendConfig) BackendConfig {
		b.Kind, b.Redis = "redis", []string{"127.0.0.1:7001"}
		return b
	}
	for _, c := range []struct {
		b    BackendConfig
		want string
	}{
		{redis(BackendConfig{Password: backendPass, PasswordEnv: "GATEWAY_TEST_SHARD_PASSWORD"}), "set one"},
		{redis(BackendConfig{PasswordEnv: "GATEWAY_TEST_UNSET_VARIABLE"}), `"GATEWAY_TEST_UNSET_VARIABLE" is not set or empty`},
		{redis(BackendConfig{PasswordEnv: "GATEWAY_TEST_EMPTY"}), `"GATEWAY_TEST_EMPTY" is not set or empty`},
		{redis(BackendConfig{Username: "gw"}), "username needs a password"},
		{BackendConfig{Password: backendPass}, "memkv backend"},
		{BackendConfig{PasswordEnv: "GATEWAY_TEST_SHARD_PASSWORD"}, "memkv backend"},
	} {
		_, err := Config{Backend: c.b}.withDefaults()
		require.ErrorContains(t, err, c.want)
		assert.NotContains(t, err.Error(), backendPass)
	}
}
