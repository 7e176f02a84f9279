package main

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// TestMarkSeesResetstatBeforeSameFlush: a CONFIG RESETSTAT followed by the
// same FLUSHALL as before it leaves the flush lines of INFO commandstats as
// they were when the usec matches (one FLUSHALL of an empty database takes
// 13-20 us, so it does often enough: a RESETSTAT and a FLUSHALL before each
// run of a benchmark). The marker check compared those lines only, missed
// the flush, and went on vouching for values cached before it. The test
// records, as the signature of the last reset, the lines the shard shows
// after its RESETSTAT and FLUSHALL: those of such a collision.
func TestMarkSeesResetstatBeforeSameFlush(t *testing.T) {
	r := startRedis(t)
	ctx := context.Background()
	c := redis.NewClient(&redis.Options{Addr: r.addr})
	defer c.Close()
	require.NoError(t, c.ConfigSet(ctx, "notify-keyspace-events", "KEA").Err())
	ct, err := newCacheTier(1, 100, time.Minute)
	require.NoError(t, err)
	defer ct.Close()
	b := &redisBackend{volatile: make([]expiryFlag, 1)}
	var m markerState
	m.feedUp.Store(true)
	for range 3 { // the checks of a shard that ran a while
		ct.mark(ctx, b, 0, c, "marker", &m)
	}
	require.Equal(t, uint64(1), ct.resets.Load(), "the first check resets (no signature yet), the others do not")

	ct.caches[0].Load().Set("fk", cached{value: []byte("a"), found: true})
	require.True(t, ct.contains(0, "fk"))
	require.NoError(t, c.ConfigResetStat(ctx).Err())
	require.NoError(t, c.FlushAll(ctx).Err())
	cnt, err := readCounts(ctx, c)
	require.NoError(t, err)
	m.flushes.Store(cnt) // the lines before the RESETSTAT were the same
	ct.mark(ctx, b, 0, c, "marker", &m)
	require.False(t, ct.contains(0, "fk"), "a value cached before a FLUSHALL is still vouched for")
	require.Equal(t, uint64(2), ct.resets.Load())

	ct.mark(ctx, b, 0, c, "marker", &m)
	require.Equal(t, uint64(2), ct.resets.Load(), "a check with nothing run since resets nothing")
}
