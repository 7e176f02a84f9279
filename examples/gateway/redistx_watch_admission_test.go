package main

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// On Redis shards WATCH reads its keys' states, a round trip each: it is
// admitted as a read of its keys, as a read after it is. It was checked by
// the quota alone: a loop of WATCHes of max_args keys, UNWATCH, got past
// load shedding while the tenant's GETs were shed.
func TestRedisWatchAdmitted(t *testing.T) {
	r := startRedis(t)
	in := startGateway(t, Config{HTTPAddr: "-", MinLimit: 8, MaxLimit: 8, QueueDeadline: Duration(20 * time.Millisecond),
		Backend: BackendConfig{Kind: "redis", Redis: []string{r.addr}, Pool: 2}})
	g := in.gw
	ctx := context.Background()
	c := client(t, in, nil).Conn()
	defer c.Close()
	require.NoError(t, c.Ping(ctx).Err())

	s0 := g.shedder.Stats()
	require.NoError(t, c.Do(ctx, "WATCH", "{w}a", "{w}b", "{w}c").Err())
	s1 := g.shedder.Stats()
	require.Equal(t, int64(3), s1.AdmittedCost-s0.AdmittedCost, "WATCH of 3 keys")
	require.Zero(t, s1.InFlight, "its admission given back")
	require.NoError(t, c.Do(ctx, "UNWATCH").Err())

	release, err := g.shedder.Acquire(ctx, "other", 0, 8)
	require.NoError(t, err)
	getErr, watchErr := c.Get(ctx, "{w}a").Err(), c.Do(ctx, "WATCH", "{w}a").Err()
	release()
	require.ErrorContains(t, getErr, "OVERLOADED", "GET at the admission limit")
	require.ErrorContains(t, watchErr, "OVERLOADED", "WATCH's read of the same key")
	_, err = c.TxPipelined(ctx, func(p redis.Pipeliner) error { return p.Set(ctx, "{x}k", "1", 0).Err() })
	require.NoError(t, err, "the refused WATCH left no transaction bound to its shard")
}
