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

// TestRedisCachingTierSeesFlushes: FLUSHALL, FLUSHDB and SWAPDB run on the
// shard behind the gateway's back change every key of database 0, and Redis
// announces none of it with a keyspace notification. The markers kept
// vouching for the cache, so every value cached before was served, as long
// as it stayed cached, far past the staleness bound. A read that starts
// more than the bound after the command must see the keys gone.
func TestRedisCachingTierSeesFlushes(t *testing.T) {
	const bound = 100 * time.Millisecond
	in, direct := redisCachingGateway(t, bound)
	ctx := context.Background()
	c := client(t, in, nil)
	for _, cmd := range [][]any{{"FLUSHALL"}, {"FLUSHDB"}, {"FLUSHALL", "ASYNC"}, {"SWAPDB", 0, 1}} {
		t.Run(fmt.Sprint(cmd...), func(t *testing.T) {
			require.NoError(t, direct.FlushAll(ctx).Err())
			require.NoError(t, c.Set(ctx, "fk", "a", 0).Err())
			syncFeed(t, in)
			require.Equal(t, "a", c.Get(ctx, "fk").Val()) // cached
			require.NoError(t, direct.Do(ctx, cmd...).Err())
			w := time.Now()
			for time.Since(w) <= bound+10*time.Millisecond {
				_ = c.Get(ctx, "fk") // the reads in between may be served from the cache
			}
			assert.ErrorIs(t, c.Get(ctx, "fk").Err(), redis.Nil, "a value %v removed outlived the staleness bound", cmd)
		})
	}
}

func TestFlushSignature(t *testing.T) {
	info := "# Commandstats\r\n" +
		"cmdstat_set:calls=3,usec=62,usec_per_call=20.67,rejected_calls=0,failed_calls=0\r\n" +
		"cmdstat_swapdb:calls=1,usec=4,usec_per_call=4.00,rejected_calls=0,failed_calls=0\r\n" +
		"cmdstat_flushall:calls=1,usec=56,usec_per_call=56.00,rejected_calls=0,failed_calls=0\r\n" +
		"cmdstat_flushallx:calls=9,usec=56,usec_per_call=56.00,rejected_calls=0,failed_calls=0\r\n"
	assert.Equal(t, "cmdstat_flushall:calls=1,usec=56,usec_per_call=56.00,rejected_calls=0,failed_calls=0\n"+
		"cmdstat_swapdb:calls=1,usec=4,usec_per_call=4.00,rejected_calls=0,failed_calls=0\n", flushSignature(info))
	assert.Empty(t, flushSignature("# Commandstats\r\n"), "none run yet")
}
