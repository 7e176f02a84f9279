package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestRedisCachingTierNotificationsTurnedOff: an application that sets the
// shard's notify-keyspace-events to what it needs itself ("Ex": expired
// events only) turns off the keyspace notifications the feed relies on. The
// markers kept vouching for the cache meanwhile, so a value changed behind
// the gateway's back was served for as long as it stayed cached, far past
// the staleness bound. And once the notifications are back, the changes made
// while they were off must not be served either.
func TestRedisCachingTierNotificationsTurnedOff(t *testing.T) {
	const bound = 100 * time.Millisecond
	in, direct := redisCachingGateway(t, bound)
	ctx := context.Background()
	c := client(t, in, nil)
	require.NoError(t, direct.Set(ctx, "nk", "a", 0).Err())
	syncFeed(t, in)
	require.Equal(t, "a", c.Get(ctx, "nk").Val())

	// readAfter reads nk until the bound has passed since w, then once more:
	// that read must see every write acknowledged before w.
	readAfter := func(w time.Time) string {
		for time.Since(w) <= bound+10*time.Millisecond {
			_ = c.Get(ctx, "nk") // the reads in between may be served from the cache
		}
		return c.Get(ctx, "nk").Val()
	}

	require.NoError(t, direct.ConfigSet(ctx, "notify-keyspace-events", "Ex").Err())
	require.NoError(t, direct.Set(ctx, "nk", "b", 0).Err())
	require.Equal(t, "b", readAfter(time.Now()), "a write behind the gateway's back outlived the staleness bound")

	// Changed while the notifications are off (the cache holds "b", loaded
	// by the read above), then they are on again.
	require.NoError(t, direct.Set(ctx, "nk", "c", 0).Err())
	w := time.Now()
	require.NoError(t, direct.ConfigSet(ctx, "notify-keyspace-events", "KEA").Err())
	require.Equal(t, "c", readAfter(w), "a write made while notifications were off outlived the staleness bound")

	// With the notifications back, the feed invalidates again.
	syncFeed(t, in)
	require.NoError(t, direct.Set(ctx, "nk", "d", 0).Err())
	syncFeed(t, in)
	require.Equal(t, "d", c.Get(ctx, "nk").Val())
}
