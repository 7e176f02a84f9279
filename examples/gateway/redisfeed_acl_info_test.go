package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRedisCachingTierInfoRefusedAtStart: with the caching tier, a shard
// whose ACL user may not run INFO (or CONFIG GET) fails the start with the
// NOPERM error. Every marker check reads the flags and INFO: before, the
// gateway started, each check failed without a word, no marker went out,
// and the cache served a key only within one staleness bound of its fill.
// A user that may run both still starts.
func TestRedisCachingTierInfoRefusedAtStart(t *testing.T) {
	for _, c := range []struct {
		name, perms string
		refused     bool
	}{
		{"without info", "-info", true},
		{"without config get", "-config|get", true},
		{"with both", "+info", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			shard := startRedisAs(t, "admin", backendPass, "--user", "default", "off",
				"--user", "admin", "on", ">"+backendPass, "~*", "&*", "+@all",
				"--user", "gw", "on", ">"+backendPass, "~*", "&*", "+@all", c.perms)
			cfg := Config{Backend: BackendConfig{Kind: "redis", Redis: []string{shard.addr}, Pool: 2,
				Username: "gw", Password: backendPass},
				CacheCapacity: 10, CacheStaleness: Duration(time.Minute), Addr: "127.0.0.1:0", HTTPAddr: "127.0.0.1:0"}
			in, err := start(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
			if err == nil {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				_ = in.Shutdown(ctx)
			}
			if !c.refused {
				require.NoError(t, err)
				return
			}
			require.Error(t, err, "the gateway started with a caching tier whose markers the shard refuses to check")
			assert.Contains(t, err.Error(), "NOPERM")
			assert.Contains(t, err.Error(), shard.addr)
		})
	}
}

// TestMarkWarnsOnceWhenInfoRefused: a shard whose ACL stops allowing INFO
// after the start has every marker check refused: one warning, not one per
// check, and none before. The checks failed without a word.
func TestMarkWarnsOnceWhenInfoRefused(t *testing.T) {
	shard := startRedisAs(t, "admin", backendPass, "--user", "default", "off",
		"--user", "admin", "on", ">"+backendPass, "~*", "&*", "+@all",
		"--user", "gw", "on", ">"+backendPass, "~*", "&*", "+@all")
	ctx := context.Background()
	admin := redis.NewClient(&redis.Options{Addr: shard.addr, Username: "admin", Password: backendPass, MaxRetries: -1})
	defer admin.Close()
	require.NoError(t, admin.ConfigSet(ctx, "notify-keyspace-events", "KA").Err())
	c := redis.NewClient(&redis.Options{Addr: shard.addr, Username: "gw", Password: backendPass, MaxRetries: -1})
	defer c.Close()

	var logs bytes.Buffer
	ct, err := newCacheTier(1, 100, time.Second)
	require.NoError(t, err)
	ct.log = slog.New(slog.NewJSONHandler(&logs, nil))
	b := &redisBackend{volatile: make([]expiryFlag, 1)}
	var m markerState
	m.feedUp.Store(true)
	warnings := func() int { return strings.Count(logs.String(), "refuses the checks") }

	ct.mark(ctx, b, 0, c, "marker", &m)
	require.Zero(t, warnings(), logs.String())
	require.NoError(t, admin.Do(ctx, "ACL", "SETUSER", "gw", "-info").Err())
	for range 3 {
		ct.mark(ctx, b, 0, c, "marker", &m)
	}
	require.Equal(t, 1, warnings(), logs.String())
	require.Contains(t, logs.String(), "NOPERM")
}
