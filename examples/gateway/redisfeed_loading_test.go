package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// TestRedisCachingTierLoadingShardIsVolatile: a shard that restarts with
// persistence loads its dataset with the keys' expiries, and announces none
// of them; its feed resubscribes while it loads (subscriptions, CONFIG and
// INFO are served during loading), when INFO keyspace counts only the keys
// loaded so far. A shard read as having no key with an expiry then had
// every later fill skip PTTL, so a value whose key has an expiry was cached
// without it and served after the key expired.
func TestRedisCachingTierLoadingShardIsVolatile(t *testing.T) {
	dir := t.TempDir()
	shard := startRedis(t, "--dir", dir)
	ctx := context.Background()
	direct := redis.NewClient(&redis.Options{Addr: shard.addr, MaxRetries: -1})
	defer direct.Close()
	const fillers = 10000
	require.NoError(t, direct.Eval(ctx, "for i = 1, tonumber(ARGV[1]) do redis.call('SET', 'f'..i, 'xxxxxxxx') end return 1",
		nil, fillers).Err())
	// The key with an expiry must load well after the feed resubscribes:
	// pick a name that the snapshot stores in its last part (the order of
	// a snapshot's keys follows the server's hash seed).
	key := ""
	for i := 0; key == ""; i++ {
		require.Less(t, i, 100, "no key name stored late in the snapshot")
		k := fmt.Sprint("tk", i)
		require.NoError(t, direct.Set(ctx, k, "v", time.Hour).Err())
		require.NoError(t, direct.Save(ctx).Err())
		rdb, err := os.ReadFile(filepath.Join(dir, "dump.rdb"))
		require.NoError(t, err)
		if at := bytes.Index(rdb, append([]byte{0, byte(len(k))}, k...)); at > len(rdb)*6/10 {
			key = k
			break
		}
		require.NoError(t, direct.Del(ctx, k).Err())
	}

	in := startGateway(t, Config{Backend: BackendConfig{Kind: "redis", Redis: []string{shard.addr}, Pool: 4},
		CacheCapacity: 1000, CacheStaleness: Duration(time.Minute)}) // only the feed invalidates
	c := client(t, in, nil)

	// Restart the shard from its snapshot, loading slowly (with the
	// notifications on, as a shard configured for the tier is: the feed's
	// markers never find them off).
	bin, err := exec.LookPath("redis-server")
	require.NoError(t, err)
	port, err := strconv.Atoi(strings.TrimPrefix(shard.addr, "127.0.0.1:"))
	require.NoError(t, err)
	resets := in.gw.cache.resets.Load()
	shard.stop()
	shard.startUntil(t, bin, port, answersInfo, "--dir", dir, "--notify-keyspace-events", "KEA", "--key-load-delay", "300", "--loading-process-events-interval-bytes", "1024")
	eventually(t, "the feed did not resubscribe", func() bool { return in.gw.cache.resets.Load() > resets })
	syncFeed(t, in) // the feed has read the shard's state at its subscription

	restarted := redis.NewClient(&redis.Options{Addr: shard.addr, MaxRetries: -1})
	defer restarted.Close()
	require.True(t, loading(t, restarted), "the shard finished loading before the feed resubscribed: the test needs a slower load")
	ks, err := restarted.Info(ctx, "keyspace").Result()
	require.NoError(t, err)
	n, err := parseExpires(ks)
	require.NoError(t, err)
	require.Zero(t, n, "the key with an expiry loaded before the feed resubscribed: the test needs a slower load")

	eventuallyWithin(t, 30*time.Second, "the shard did not finish loading", func() bool { return !loading(t, restarted) })
	eventually(t, "GET through the gateway did not answer the value", func() bool { return c.Get(ctx, key).Val() == "v" })
	v, ok := in.gw.cache.caches[0].Load().TryGet(key)
	require.True(t, ok, "the GET filled the cache")
	require.NotZero(t, v.expireAt, "a key with an expiry, loaded after the feed subscribed, was cached without it")
}

// loading reports whether the server behind c is loading its dataset.
func loading(t *testing.T, c *redis.Client) bool {
	t.Helper()
	s, err := c.Info(context.Background(), "persistence").Result()
	require.NoError(t, err)
	return strings.Contains(s, "loading:1")
}

func TestShardLoading(t *testing.T) {
	for info, want := range map[string]bool{
		"# Persistence\r\nloading:0\r\nasync_loading:0\r\nrdb_changes_since_last_save:0\r\n": false,
		"# Persistence\r\nloading:1\r\nasync_loading:0\r\n":                                  true,
		"# Persistence\r\nloading:0\r\nasync_loading:1\r\n":                                  true,
		"": false,
	} {
		require.Equal(t, want, shardLoading(info), "%q", info)
	}
}

// answersInfo is the readiness of a server loading its dataset: it answers
// INFO then (PING it refuses until the load ends).
func answersInfo(c *redis.Client) error { return c.Info(context.Background(), "persistence").Err() }
