package main

import (
	"bytes"
	"context"
	"net"
	"sync"
	"sync/atomic"
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
	ln      net.Listener
	target  string
	mu      sync.Mutex
	held    bool
	release chan struct{} // closed by resume
	conns   []net.Conn
	wg      sync.WaitGroup
}

func startFeedHoldProxy(t *testing.T, target string) *feedHoldProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &feedHoldProxy{ln: ln, target: target, release: make(chan struct{})}
	p.wg.Go(p.accept)
	t.Cleanup(p.close)
	return p
}

func (p *feedHoldProxy) addr() string { return p.ln.Addr().String() }

func (p *feedHoldProxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, s)
		p.mu.Unlock()
		var feed atomic.Bool
		p.wg.Go(func() { p.up(c, s, &feed) })
		p.wg.Go(func() { p.down(s, c, &feed) })
	}
}

// up copies client to server, noting a subscriber connection.
func (p *feedHoldProxy) up(c, s net.Conn, feed *atomic.Bool) {
	defer s.Close()
	buf := make([]byte, 64<<10)
	for {
		n, err := c.Read(buf)
		if n > 0 {
			if bytes.Contains(buf[:n], []byte("PSUBSCRIBE")) {
				feed.Store(true)
			}
			if _, werr := s.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// down copies server to client, waiting while held if the connection is
// the feed's.
func (p *feedHoldProxy) down(s, c net.Conn, feed *atomic.Bool) {
	defer c.Close()
	buf := make([]byte, 64<<10)
	for {
		n, err := s.Read(buf)
		if n > 0 {
			if feed.Load() {
				p.mu.Lock()
				held, release := p.held, p.release
				p.mu.Unlock()
				if held {
					<-release
				}
			}
			if _, werr := c.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
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

func (p *feedHoldProxy) close() {
	p.resume()
	p.ln.Close()
	p.mu.Lock()
	for _, c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
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
			const ttl = 30 * time.Millisecond
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
