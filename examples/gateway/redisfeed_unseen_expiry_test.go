package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRedisCachingTierUnseenExpiry: a shard with no key with an expiry is
// not volatile, so fills read no PTTL. A key given an expiry that no
// keyspace notification announced then filled with no expiry: SWAPDB 0 1
// brings database 1's keys, their expiries too, into database 0, and
// notifications turned off and on again around a SET ... PX (one MULTI)
// announce nothing. The marker check saw the SWAPDB or the CONFIG SET and
// emptied the cache, but left the shard as it was: the next fill of the key
// cached it with no expiry, and, its expiry announced by Redis only when it
// got round to it (here never: active expiry is off, as it lags under many
// keys), the gateway served the value long after it expired. A read that
// starts more than the bound after the expiry must see the key gone.
func TestRedisCachingTierUnseenExpiry(t *testing.T) {
	const ttl = 300 * time.Millisecond
	t.Run("swapdb", func(t *testing.T) {
		requireUnseenExpirySeen(t, func(ctx context.Context, direct *redis.Client, addr string) {
			db1 := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DB: 1})
			defer db1.Close()
			require.NoError(t, db1.Set(ctx, "sk", "v", ttl).Err()) // database 1: no notification reaches the feed
			require.NoError(t, direct.Do(ctx, "SWAPDB", 0, 1).Err())
		})
	})
	t.Run("flags off and on", func(t *testing.T) {
		requireUnseenExpirySeen(t, func(ctx context.Context, direct *redis.Client, _ string) {
			_, err := direct.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.ConfigSet(ctx, "notify-keyspace-events", "")
				p.Set(ctx, "sk", "v", ttl)
				p.ConfigSet(ctx, "notify-keyspace-events", "KA")
				return nil
			})
			require.NoError(t, err)
		})
	})
}

// requireUnseenExpirySeen starts a shard without active expiry and a
// gateway over it, has write give key sk an expiry of about 300 ms with no
// notification, reads sk through the gateway once its cache started over,
// and requires a read that starts more than the bound after sk expired to
// see it gone.
func requireUnseenExpirySeen(t *testing.T, write func(ctx context.Context, direct *redis.Client, addr string)) {
	const bound = 100 * time.Millisecond
	shard := startRedis(t, "--enable-debug-command", "yes")
	ctx := context.Background()
	direct := redis.NewClient(&redis.Options{Addr: shard.addr, MaxRetries: -1})
	t.Cleanup(func() { _ = direct.Close() })
	require.NoError(t, direct.Do(ctx, "DEBUG", "SET-ACTIVE-EXPIRE", 0).Err())
	in := startGateway(t, Config{Backend: BackendConfig{Kind: "redis", Redis: []string{shard.addr}, Pool: 4},
		CacheCapacity: 1000, CacheStaleness: Duration(bound)})
	rb, _ := asRedis(in.gw.backend)
	require.False(t, rb.volatile[0].isSet(), "no key has an expiry")

	resets := in.gw.cache.resets.Load()
	write(ctx, direct, shard.addr)
	expires := time.Now().Add(300 * time.Millisecond)
	eventually(t, "the marker check did not see the change", func() bool { return in.gw.cache.resets.Load() > resets })
	syncFeed(t, in)
	c := client(t, in, nil)
	require.Equal(t, "v", c.Get(ctx, "sk").Val()) // the fill
	for time.Now().Before(expires.Add(bound + 10*time.Millisecond)) {
		_ = c.Get(ctx, "sk") // the reads in between may be served from the cache
	}
	assert.ErrorIs(t, c.Get(ctx, "sk").Err(), redis.Nil, "a value given an expiry unannounced outlived it past the staleness bound")
}

func TestExpiriesUnseen(t *testing.T) {
	line := func(cmd string, calls int) string {
		return fmt.Sprintf("cmdstat_%s:calls=%d,usec=5,usec_per_call=5.00,rejected_calls=0,failed_calls=0\n", cmd, calls)
	}
	base := line("flushall", 1) + line("swapdb", 1)
	assert.False(t, expiriesUnseen(base, base))
	assert.False(t, expiriesUnseen(base, line("flushall", 2)+line("flushdb", 1)+line("swapdb", 1)), "flushes only remove keys")
	assert.True(t, expiriesUnseen(base, line("flushall", 1)+line("swapdb", 2)))
	assert.True(t, expiriesUnseen(base, base+line("config|set", 1)))
	assert.True(t, expiriesUnseen(base, base+line("debug", 1)))
}
