package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/internal/leak"
)

// TestFeedRefusedSubscribeBacksOff: a shard whose ACL lets the gateway
// PSUBSCRIBE to the keyspace notifications but not SUBSCRIBE to its marker
// channel refuses the feed every time it dials. The feed backs off as after
// any failure to subscribe, and logs one warning and no return. Before, the
// PSUBSCRIBE confirmation counted as a subscription: the backoff started over
// at 10 ms each time, so the feed dialed (a 1 MiB read buffer) and emptied
// the cache about every 10 ms, and logged the feed back every 10 s.
func TestFeedRefusedSubscribeBacksOff(t *testing.T) {
	r := startRedis(t)
	ctx := context.Background()
	c := redis.NewClient(&redis.Options{Addr: r.addr, MaxRetries: -1})
	defer c.Close()
	require.NoError(t, c.Do(ctx, "ACL", "SETUSER", "default", "resetchannels", "&"+keyspacePattern).Err())

	var logs syncBuffer
	ct, err := newCacheTier(1, 100, time.Second)
	require.NoError(t, err)
	ct.log = slog.New(slog.NewJSONHandler(&logs, nil))
	const n = 10
	waits := make(chan time.Duration, n)
	ct.feedWait = func(ctx context.Context, d time.Duration) bool {
		select {
		case waits <- d: // recorded: dial again at once
			return true
		default: // enough: wait for the end
			<-ctx.Done()
			return false
		}
	}
	b := newRedisBackend([]string{r.addr}, nil, 1, "go-redis", redisAuth{})
	defer b.Close()
	fctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	var m markerState
	// nil ready: a gateway already serving, whose shard's ACL changed (at
	// start, the refusal fails the start: TestRedisCachingTierMarkerRefusedAtStart).
	wg.Go(func() { ct.followShard(fctx, b, 0, "__tierkit:checkpoint:refused", nil, &m) })

	var got []time.Duration
	for range n {
		got = append(got, <-waits)
	}
	assert.Equal(t, []time.Duration{10 * time.Millisecond, 20 * time.Millisecond, 40 * time.Millisecond, 80 * time.Millisecond,
		160 * time.Millisecond, 320 * time.Millisecond, 640 * time.Millisecond, time.Second, time.Second, time.Second}, got)
	cancel()
	wg.Wait()
	count := map[string]int{}
	for _, l := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m), l)
		if m["level"] != "DEBUG" && m["shard"] == 0.0 {
			count[fmt.Sprint(m["level"], " ", m["msg"])]++
			if m["level"] == "WARN" {
				assert.Contains(t, m["err"], "NOPERM")
			}
		}
	}
	assert.Equal(t, map[string]int{
		"WARN caching tier: lost a shard's change feed; until it is back, its cache serves each value for at most one staleness bound after its fill": 1,
	}, count)
}

// TestFeedBackoff: a feed's wait doubles after each failure up to
// feedBackoffMax, and starts over only after a subscription that held
// feedHealthy.
func TestFeedBackoff(t *testing.T) {
	var bo feedBackoff
	var got []time.Duration
	for _, upFor := range []time.Duration{0, 0, feedHealthy - 1, 0, 0, 0, 0, 0, 0, feedHealthy, 0} {
		got = append(got, bo.next(upFor))
	}
	ms := time.Millisecond
	assert.Equal(t, []time.Duration{10 * ms, 20 * ms, 40 * ms, 80 * ms, 160 * ms, 320 * ms, 640 * ms, time.Second, time.Second,
		10 * ms, 20 * ms}, got)
}

// TestRedisCachingTierMarkerRefusedAtStart: a shard whose ACL lets the
// gateway PSUBSCRIBE to the keyspace notifications but not SUBSCRIBE to its
// marker channel fails the start with the shard's refusal, as a shard that
// refuses the notifications' flags does. Before, the start waited only for
// the PSUBSCRIBE's confirmation: the gateway served with a caching tier
// that could never hit (no marker reaches it), said so only in a warning
// that the shard's feed was lost, and showed nothing in its metrics. A shard
// that refuses the PSUBSCRIBE too failed the start only at its 5 s timeout,
// with no word of the refusal.
func TestRedisCachingTierMarkerRefusedAtStart(t *testing.T) {
	for name, channels := range map[string][]any{
		"marker refused": {"&" + keyspacePattern},
		"both refused":   {},
	} {
		t.Run(name, func(t *testing.T) {
			leak.Check(t) // the refused feed's goroutines end with the failed start
			shard := startRedis(t)
			direct := redis.NewClient(&redis.Options{Addr: shard.addr, MaxRetries: -1})
			defer direct.Close()
			args := append([]any{"ACL", "SETUSER", "default", "resetchannels"}, channels...)
			require.NoError(t, direct.Do(context.Background(), args...).Err())
			cfg := Config{Backend: BackendConfig{Kind: "redis", Redis: []string{shard.addr}, Pool: 2},
				CacheCapacity: 10, Addr: "127.0.0.1:0", HTTPAddr: "127.0.0.1:0"}
			begin := time.Now()
			in, err := start(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
			if err == nil {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				_ = in.Shutdown(ctx)
			}
			require.Error(t, err, "the gateway started with a caching tier whose feed the shard refuses")
			assert.Contains(t, err.Error(), "NOPERM")
			assert.Contains(t, err.Error(), shard.addr)
			assert.Less(t, time.Since(begin), 4*time.Second, "a refusal fails the start at once, not at the start's timeout")
			t.Log(err)
		})
	}
}
