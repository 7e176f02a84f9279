package main

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tierkit/tierkit/internal/leak"
)

// TestRedisCachingTierShardDownAtStart: with the caching tier on, a gateway
// whose shard is down when it starts still starts (it refused to: the tier
// read every shard's notification flags and waited for every shard's
// subscription, so one shard's outage kept all of them from being served),
// fails that shard's keys promptly while the other shard serves and caches
// its own, and once the shard is up serves its keys with the feed
// invalidating them.
func TestRedisCachingTierShardDownAtStart(t *testing.T) {
	leak.Check(t)
	up := startRedis(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	require.NoError(t, ln.Close()) // nothing listens there now
	downAddr := "127.0.0.1:" + strconv.Itoa(port)
	in := startGateway(t, Config{Backend: BackendConfig{Kind: "redis", Redis: []string{up.addr, downAddr}, Pool: 2},
		CacheCapacity: 1000, CacheStaleness: Duration(time.Minute)}) // only the feed invalidates
	keyOn := map[int]string{}
	for i := 0; len(keyOn) < 2; i++ {
		k := fmt.Sprint("key", i)
		keyOn[in.gw.shard(k)] = k
	}
	c := client(t, in, nil)
	ctx := context.Background()
	begin := time.Now()
	require.ErrorContains(t, c.Get(ctx, keyOn[1]).Err(), "backend shard 1")
	assert.Less(t, time.Since(begin), 3*time.Second, "fails promptly")
	require.NoError(t, c.Set(ctx, keyOn[0], "v", 0).Err())
	require.Equal(t, "v", c.Get(ctx, keyOn[0]).Val(), "the other shard serves")

	bin, err := exec.LookPath("redis-server")
	require.NoError(t, err)
	down := &redisServer{addr: downAddr}
	down.start(t, bin, port) // default configuration: no keyspace notifications
	t.Cleanup(down.stop)
	direct := redis.NewClient(&redis.Options{Addr: downAddr, MaxRetries: -1})
	t.Cleanup(func() { _ = direct.Close() })
	eventually(t, "the shard's feed did not subscribe", func() bool {
		f, err := direct.ConfigGet(ctx, "notify-keyspace-events").Result()
		return err == nil && notificationsCover(f["notify-keyspace-events"]) &&
			direct.PubSubNumPat(ctx).Val() > 0
	})
	require.NoError(t, c.Set(ctx, keyOn[1], "a", 0).Err())
	require.Equal(t, "a", c.Get(ctx, keyOn[1]).Val())
	require.NoError(t, direct.Set(ctx, keyOn[1], "b", 0).Err())
	eventually(t, "a write on the shard behind the gateway's back did not reach the cache", func() bool {
		return c.Get(ctx, keyOn[1]).Val() == "b"
	})
	require.NoError(t, c.Close())
	shut, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	require.NoError(t, in.Shutdown(shut))
}
