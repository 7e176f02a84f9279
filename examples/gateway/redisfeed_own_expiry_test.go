package main

import (
	"bytes"
	"context"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// feedHoldProxy forwards connections to a Redis server and, while held,
// holds back what the server sends on the caching tier's subscriber
// connection (the one that sent PSUBSCRIBE): the feed lags, as a busy one
// does, and every other connection goes on as before.
type feedHoldProxy struct {
	*pipeProxy
	mu      sync.Mutex
	held    bool
	release chan struct{} // closed by resume
}

func startFeedHoldProxy(t *testing.T, target string) *feedHoldProxy {
	t.Helper()
	p := &feedHoldProxy{release: make(chan struct{})}
	p.pipeProxy = startPipeProxy(t, target, p.before)
	t.Cleanup(p.resume) // before the proxy's close
	return p
}

// before notes a subscriber connection on its way up, and holds what the
// server sends it while held.
func (p *feedHoldProxy) before(up bool, chunk []byte, pair *pipePair) {
	if up {
		if bytes.Contains(chunk, []byte("PSUBSCRIBE")) {
			pair.feed.Store(true)
		}
		return
	}
	if !pair.feed.Load() {
		return
	}
	p.mu.Lock()
	held, release := p.held, p.release
	p.mu.Unlock()
	if held {
		<-release
	}
}

// hold holds the feed's frames from now on.
func (p *feedHoldProxy) hold() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.held = true
}

// resume lets the held frames through.
func (p *feedHoldProxy) resume() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.held {
		p.held = false
		close(p.release)
		p.release = make(chan struct{})
	}
}

// TestRedisCachingTierOwnExpiry: a key the gateway itself gives an expiry
// (SET ... PX, or a SET ... PX in a transaction) on a shard that held no key
// with one is cached with that expiry by the GET after it, so a GET after
// the key expired reads it as absent, however late the feed delivers the
// notification that the key has an expiry. Before, the shard counted as
// volatile only once the feed delivered that notification: a fill between
// the write's reply and that delivery read no PTTL and cached the value for
// good, and the client read its own expired key back as long as the feed
// lagged (up to the staleness bound).
func TestRedisCachingTierOwnExpiry(t *testing.T) {
	for _, how := range []string{"set", "exec"} {
		t.Run(how, func(t *testing.T) {
			shard := startRedis(t)
			p := startFeedHoldProxy(t, shard.addr)
			in := startGateway(t, Config{Backend: BackendConfig{Kind: "redis", Redis: []string{p.addr()}, Pool: 4},
				CacheCapacity: 1000, CacheStaleness: Duration(time.Minute)})
			b, ok := asRedis(in.gw.backend)
			require.True(t, ok)
			eventually(t, "an empty shard still counts as volatile", func() bool { return !b.volatile[0].isSet() })
			direct := redis.NewClient(&redis.Options{Addr: shard.addr, MaxRetries: -1})
			defer direct.Close()
			ctx := context.Background()
			c := client(t, in, nil)

			p.hold() // the feed lags from here on
			defer p.resume()
			// Long enough for the SET and the fill's GET to land before the key
			// expires on a loaded machine under -race (30 ms failed 1 run in 3).
			const ttl = 300 * time.Millisecond
			if how == "set" {
				require.NoError(t, c.Set(ctx, "own", "v", ttl).Err())
			} else {
				_, err := c.TxPipelined(ctx, func(tx redis.Pipeliner) error {
					tx.Set(ctx, "own", "v", ttl)
					return nil
				})
				require.NoError(t, err)
			}
			require.Equal(t, "v", c.Get(ctx, "own").Val()) // the fill
			eventually(t, "the key did not expire", func() bool {
				return direct.Exists(ctx, "own").Val() == 0
			})
			v, err := c.Get(ctx, "own").Result()
			assert.ErrorIs(t, err, redis.Nil, "an expired key read back as %q: cached without its expiry", v)
		})
	}
}
