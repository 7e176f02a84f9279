package main

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRedisCachingTierFarExpiry: a key given an expiry past 2262 on the
// shard directly (EXPIREAT k 9999999999, year 2286, a common "never"; or
// PEXPIREAT further still, past what a time.Duration holds from now) is
// cached with an expiry that keeps it live, on either data client. Its
// expiry in unix nanoseconds overflowed an int64 to a time long past: the
// cache found the value expired on every read, so no read of the key was
// ever a hit.
func TestRedisCachingTierFarExpiry(t *testing.T) {
	shard := startRedis(t)
	direct := redis.NewClient(&redis.Options{Addr: shard.addr, MaxRetries: -1})
	t.Cleanup(func() { _ = direct.Close() })
	ctx := context.Background()
	require.NoError(t, direct.Set(ctx, "far", "v", 0).Err())
	require.NoError(t, direct.ExpireAt(ctx, "far", time.Unix(9999999999, 0)).Err())
	require.NoError(t, direct.Set(ctx, "farther", "v", 0).Err())
	require.NoError(t, direct.Do(ctx, "PEXPIREAT", "farther", int64(9e15)).Err())
	for _, dc := range []string{"rueidis", "go-redis"} {
		t.Run(dc, func(t *testing.T) {
			in := startGateway(t, Config{Backend: BackendConfig{Kind: "redis", Redis: []string{shard.addr}, Pool: 4, Client: dc},
				CacheCapacity: 1000, CacheStaleness: Duration(time.Minute)})
			rb, _ := asRedis(in.gw.backend)
			require.True(t, rb.volatile[0].isSet(), "INFO shows a key with an expiry")
			c := client(t, in, nil)
			for _, k := range []string{"far", "farther"} {
				require.Equal(t, "v", c.Get(ctx, k).Val()) // the fill, with PTTL
				v, ok := in.gw.cache.caches[0].Load().TryGet(k)
				require.True(t, ok)
				assert.True(t, in.gw.cache.live(v), "%s cached with expiry %d", k, v.expireAt)
				hits := in.gw.cache.stats()["hits"]
				require.Equal(t, "v", c.Get(ctx, k).Val())
				assert.Equal(t, hits+1, in.gw.cache.stats()["hits"], "the second read of %s is a hit", k)
			}
		})
	}
}
