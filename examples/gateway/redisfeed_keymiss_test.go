package main

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// TestRedisCachingTierKeymissIsNoChange: a shard whose notify-keyspace-events
// also has m (key-miss events, which some applications turn on; the tier
// keeps the flags it finds and adds K and A) announces every read of an
// absent key, the tier's own fills included. A key miss changes nothing, but
// the feed took it for a write and invalidated the key: the fill's own
// announcement dropped the absent key it had just cached, and no read of an
// absent key was ever a hit.
func TestRedisCachingTierKeymissIsNoChange(t *testing.T) {
	in, direct := redisCachingGateway(t, time.Minute)
	ctx := context.Background()
	require.NoError(t, direct.ConfigSet(ctx, "notify-keyspace-events", "KEAm").Err())
	syncFeed(t, in) // the cache has started over after the CONFIG SET (mark)
	c := client(t, in, nil)
	require.ErrorIs(t, c.Get(ctx, "absent").Err(), redis.Nil) // a fill: MGET misses, announced
	syncFeed(t, in)                                           // the key miss has reached the cache
	hits := in.gw.cache.stats()["hits"]
	require.ErrorIs(t, c.Get(ctx, "absent").Err(), redis.Nil)
	require.Equal(t, hits+1, in.gw.cache.stats()["hits"], "an absent key read again is served from the cache")
}
