package main

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// TestRedisCachingTierFlagsOffAndOnBetweenChecks: a client turns the
// shard's keyspace notifications off, writes a cached key and turns them on
// again, all between two marker checks (here in one MULTI, so no check can
// fall in between). The checks found the flags covering every change each
// time, the write was announced to nobody, and the markers kept vouching for
// the old value for as long as it stayed cached.
func TestRedisCachingTierFlagsOffAndOnBetweenChecks(t *testing.T) {
	const bound = 100 * time.Millisecond
	in, direct := redisCachingGateway(t, bound)
	ctx := context.Background()
	c := client(t, in, nil)
	require.NoError(t, c.Set(ctx, "fo", "a", 0).Err())
	syncFeed(t, in)
	require.Equal(t, "a", c.Get(ctx, "fo").Val()) // cached
	_, err := direct.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.ConfigSet(ctx, "notify-keyspace-events", "")
		p.Set(ctx, "fo", "b", 0)
		p.ConfigSet(ctx, "notify-keyspace-events", "KEA")
		return nil
	})
	require.NoError(t, err)
	w := time.Now()
	for time.Since(w) <= bound+10*time.Millisecond {
		_ = c.Get(ctx, "fo") // the reads in between may be served from the cache
	}
	require.Equal(t, "b", c.Get(ctx, "fo").Val(), "a write made while the notifications were off outlived the staleness bound")
}
